//! Reading a [`Document`]: the binary parser or the ASCII one, told apart by the binary magic.

use crate::builder::ParseOptions;
use crate::document::Document;
use crate::error::Error;
use crate::{ascii, binary};

impl<'a> Document<'a> {
    /// Parses binary or ASCII FBX, told apart by the binary magic `Kaydara FBX Binary`.
    pub fn parse(input: &'a [u8]) -> Result<Self, Error> {
        Self::parse_with(input, &ParseOptions::default())
    }

    /// [`Document::parse`] with limits.
    pub fn parse_with(input: &'a [u8], options: &ParseOptions) -> Result<Self, Error> {
        if binary::is_binary(input) {
            binary::parse(input, options)
        } else {
            ascii::parse(input, options)
        }
    }

    /// Parses binary FBX only.
    pub fn parse_binary(input: &'a [u8], options: &ParseOptions) -> Result<Self, Error> {
        binary::parse(input, options)
    }

    /// Parses ASCII FBX only.
    pub fn parse_ascii(input: &'a [u8], options: &ParseOptions) -> Result<Self, Error> {
        ascii::parse(input, options)
    }
}
