//! Where the encoders put their bytes: a `Vec` (the in-memory writers) or, with `std`, an
//! `io::Write` (the streaming ones), so that each layout's byte order is written once.

use alloc::vec::Vec;

/// Takes the encoded bytes in order, in pieces.
pub(crate) trait Sink {
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// An `io::Write` as a [`Sink`]: the first error is kept and later bytes are dropped;
/// [`IoSink::finish`] gives it back.
#[cfg(feature = "std")]
pub(crate) struct IoSink<'a, W: std::io::Write> {
    out: &'a mut W,
    error: Option<std::io::Error>,
}

#[cfg(feature = "std")]
impl<'a, W: std::io::Write> IoSink<'a, W> {
    pub(crate) fn new(out: &'a mut W) -> Self {
        IoSink { out, error: None }
    }

    /// The first write error, if any.
    pub(crate) fn finish(self) -> std::io::Result<()> {
        self.error.map_or(Ok(()), Err)
    }
}

#[cfg(feature = "std")]
impl<W: std::io::Write> Sink for IoSink<'_, W> {
    fn put(&mut self, bytes: &[u8]) {
        if self.error.is_none()
            && let Err(e) = self.out.write_all(bytes)
        {
            self.error = Some(e);
        }
    }
}
