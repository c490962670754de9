//! The material `.xml` file, as the original tool's `WriteMaterialData` saves it with tinyxml2.
//!
//! [`write_materials`] prints byte for byte what tinyxml2's `XMLPrinter` prints for that
//! document (default settings, not compact):
//! ```text
//! <?xml version="1.0" encoding="UTF-8"?>
//! <Materials>
//!     <Material>
//!         <Name>wood</Name>
//!         <DiffuseFile>wood.png</DiffuseFile>
//!         <SpecularFile></SpecularFile>
//!         <NormalFile></NormalFile>
//!         <Ambient R="0.2" G="0.2" B="0.2" A="1"/>
//!         <Diffuse R="1" G="1" B="1" A="1"/>
//!         <Specular R="0" G="0" B="0" A="16"/>
//!         <Emissive R="0" G="0" B="0" A="1"/>
//!     </Material>
//! </Materials>
//! ```
//! with `\n` line ends (the original, saving through `fopen(path, "w")` on Windows, got `\r\n`).
//! Numbers are `%.8g` of the `f32` promoted to `f64`, as glibc prints it ([`format_float`]); that
//! is not always enough digits to give back the same `f32` (9 are needed), so colours round-trip
//! to within `%.8g` and are stable from the second trip on. Text escapes `&`, `<` and `>`.
//! tinyxml2 takes C strings, so a name is cut at its first NUL character.
//!
//! [`read_materials`] accepts that output and hand-edited variants: any whitespace between
//! elements, attributes in any order, comments, CDATA, character references, `\r\n` line ends,
//! `<X/>` for `<X></X>`, unknown elements and attributes (skipped), missing elements and
//! attributes (empty string, zero). Text inside `<Name>` and the `*File` elements is taken
//! exactly as written, whitespace and line ends included (no `\r\n` normalisation), so every
//! string the writer prints comes back unchanged.

use std::borrow::ToOwned;
use std::format;
use std::string::String;
use std::vec::Vec;

use quick_xml::XmlVersion;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

use crate::error::{FormatError, XmlContext};
use crate::model::{Color, MaterialData};

// ---------------------------------------------------------------------------------------------
// Writing

/// Prints the materials as the original tool's material `.xml`, byte for byte what tinyxml2
/// prints (see the [module docs](self)).
#[cfg(feature = "write")]
pub fn write_materials(materials: &[MaterialData]) -> String {
    const DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    if materials.is_empty() {
        return [DECLARATION, "<Materials/>\n"].concat();
    }
    let mut out = String::with_capacity(DECLARATION.len() + 32 + materials.len() * 480);
    out.push_str(DECLARATION);
    out.push_str("<Materials>\n");
    for m in materials {
        out.push_str("    <Material>\n");
        push_text_element(&mut out, "Name", &m.name);
        push_text_element(&mut out, "DiffuseFile", &m.diffuse_file);
        push_text_element(&mut out, "SpecularFile", &m.specular_file);
        push_text_element(&mut out, "NormalFile", &m.normal_file);
        push_color_element(&mut out, "Ambient", &m.ambient);
        push_color_element(&mut out, "Diffuse", &m.diffuse);
        push_color_element(&mut out, "Specular", &m.specular);
        push_color_element(&mut out, "Emissive", &m.emissive);
        out.push_str("    </Material>\n");
    }
    out.push_str("</Materials>\n");
    out
}

/// `        <Tag>text</Tag>\n`: what tinyxml2 prints for an element after `SetText(text)`, even
/// for an empty text (`SetText("")` adds an empty text node, so never `<Tag/>`).
#[cfg(feature = "write")]
fn push_text_element(out: &mut String, tag: &str, text: &str) {
    out.push_str("        <");
    out.push_str(tag);
    out.push('>');
    push_escaped(out, c_str(text), false);
    out.push_str("</");
    out.push_str(tag);
    out.push_str(">\n");
}

#[cfg(feature = "write")]
fn push_color_element(out: &mut String, tag: &str, color: &Color) {
    out.push_str("        <");
    out.push_str(tag);
    for (name, value) in ["R", "G", "B", "A"].iter().zip(color) {
        out.push(' ');
        out.push_str(name);
        out.push_str("=\"");
        // Numbers never hold a character tinyxml2 escapes; escape anyway, as PushAttribute does.
        push_escaped(out, &format_float(*value), true);
        out.push('"');
    }
    out.push_str("/>\n");
}

/// The string a C API sees through `c_str()`: up to the first NUL.
#[cfg(feature = "write")]
fn c_str(s: &str) -> &str {
    s.split('\0').next().unwrap_or_default()
}

/// tinyxml2's `XMLPrinter::PrintString`: text escapes `&`, `<`, `>`; attribute values also `"`
/// and `'` (its whole entity table). Everything else, control characters included, is raw.
#[cfg(feature = "write")]
fn push_escaped(out: &mut String, s: &str, attribute: bool) {
    let mut start = 0;
    for (i, ch) in s.char_indices() {
        let entity = match ch {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '"' if attribute => "&quot;",
            '\'' if attribute => "&apos;",
            _ => continue,
        };
        out.push_str(s.get(start..i).unwrap_or_default());
        out.push_str(entity);
        start = i + 1;
    }
    out.push_str(s.get(start..).unwrap_or_default());
}

/// `%.8g` of `v` promoted to `f64`, as glibc's `printf` prints it: what tinyxml2's
/// `XMLUtil::ToStr(float)` writes. Eight significant digits, trailing zeros dropped, exponent
/// form (`1e+08`, `1.4012985e-45`) when the decimal exponent is below -4 or at least 8;
/// `-0`, `inf`, `-inf`, `nan`, `-nan`.
#[cfg(feature = "write")]
pub fn format_float(v: f32) -> String {
    let mut out = String::new();
    push_g8(&mut out, v);
    out
}

#[cfg(feature = "write")]
fn push_g8(out: &mut String, v: f32) {
    use core::fmt::Write as _;

    const PRECISION: i32 = 8;
    let x = f64::from(v);
    if x.is_sign_negative() {
        out.push('-');
    }
    if x.is_nan() {
        out.push_str("nan");
        return;
    }
    if x.is_infinite() {
        out.push_str("inf");
        return;
    }
    if x == 0.0 {
        out.push('0');
        return;
    }
    // Rust's `{:.7e}` rounds the exact binary value to 8 significant digits, ties to even, as
    // glibc does; the exponent it prints is the one after rounding, which is what %g decides on.
    let mut sci = String::with_capacity(16);
    let _ = write!(sci, "{:.*e}", (PRECISION - 1) as usize, x.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let mut digits = [b'0'; PRECISION as usize];
    for (d, b) in digits
        .iter_mut()
        .zip(mantissa.bytes().filter(u8::is_ascii_digit))
    {
        *d = b;
    }
    let significant = digits.iter().rposition(|&d| d != b'0').map_or(1, |p| p + 1);
    let digits = &digits[..significant];

    if !(-4..PRECISION).contains(&exponent) {
        push_digits(out, &digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            push_digits(out, &digits[1..]);
        }
        let _ = write!(
            out,
            "e{}{:02}",
            if exponent < 0 { '-' } else { '+' },
            exponent.unsigned_abs()
        );
    } else if exponent >= 0 {
        let int_len = exponent as usize + 1;
        if digits.len() <= int_len {
            push_digits(out, digits);
            out.extend(core::iter::repeat_n('0', int_len - digits.len()));
        } else {
            push_digits(out, &digits[..int_len]);
            out.push('.');
            push_digits(out, &digits[int_len..]);
        }
    } else {
        out.push_str("0.");
        out.extend(core::iter::repeat_n('0', (-exponent - 1) as usize));
        push_digits(out, digits);
    }
}

#[cfg(feature = "write")]
fn push_digits(out: &mut String, digits: &[u8]) {
    out.extend(digits.iter().map(|&d| char::from(d)));
}

// ---------------------------------------------------------------------------------------------
// Reading

/// Reads a material `.xml` (see the [module docs](self) for what it accepts).
///
/// Errors name the material (its position in the file, from 0), the element and the byte
/// position.
pub fn read_materials(text: &str) -> Result<Vec<MaterialData>, FormatError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut parser = Parser {
        reader: Reader::from_str(text),
        material: None,
        element: None,
    };
    parser.document()
}

/// The five XML text elements and four colour elements of a `<Material>`.
#[derive(Clone, Copy)]
enum Field {
    Name,
    DiffuseFile,
    SpecularFile,
    NormalFile,
    Ambient,
    Diffuse,
    Specular,
    Emissive,
}

impl Field {
    fn from_tag(tag: &str) -> Option<Field> {
        Some(match tag {
            "Name" => Field::Name,
            "DiffuseFile" => Field::DiffuseFile,
            "SpecularFile" => Field::SpecularFile,
            "NormalFile" => Field::NormalFile,
            "Ambient" => Field::Ambient,
            "Diffuse" => Field::Diffuse,
            "Specular" => Field::Specular,
            "Emissive" => Field::Emissive,
            _ => return None,
        })
    }

    fn text(self, m: &mut MaterialData) -> Option<&mut String> {
        match self {
            Field::Name => Some(&mut m.name),
            Field::DiffuseFile => Some(&mut m.diffuse_file),
            Field::SpecularFile => Some(&mut m.specular_file),
            Field::NormalFile => Some(&mut m.normal_file),
            _ => None,
        }
    }

    fn color(self, m: &mut MaterialData) -> Option<&mut Color> {
        match self {
            Field::Ambient => Some(&mut m.ambient),
            Field::Diffuse => Some(&mut m.diffuse),
            Field::Specular => Some(&mut m.specular),
            Field::Emissive => Some(&mut m.emissive),
            _ => None,
        }
    }
}

struct Parser<'a> {
    reader: Reader<&'a [u8]>,
    /// Context for errors.
    material: Option<usize>,
    element: Option<String>,
}

impl<'a> Parser<'a> {
    fn error_at(&self, position: u64, message: String) -> FormatError {
        FormatError::Xml {
            context: XmlContext {
                material: self.material,
                element: self.element.clone(),
                position,
            },
            message,
        }
    }

    fn error(&self, message: String) -> FormatError {
        self.error_at(self.reader.buffer_position(), message)
    }

    fn next(&mut self) -> Result<Event<'a>, FormatError> {
        self.reader
            .read_event()
            .map_err(|e| self.error_at(self.reader.error_position(), format!("{e}")))
    }

    fn document(&mut self) -> Result<Vec<MaterialData>, FormatError> {
        let materials = loop {
            match self.next()? {
                Event::Start(e) if e.name().as_ref() == "Materials" => break self.materials()?,
                Event::Empty(e) if e.name().as_ref() == "Materials" => break Vec::new(),
                Event::Start(e) | Event::Empty(e) => {
                    return Err(self.error(format!(
                        "the root element is <{}>, expected <Materials>",
                        tag_name(&e)
                    )));
                }
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
                Event::Text(t) if is_blank(&t) => {}
                Event::Eof => return Err(self.error("no <Materials> element".to_owned())),
                other => return Err(self.error(format!("{} before <Materials>", kind(&other)))),
            }
        };
        loop {
            match self.next()? {
                Event::Eof => return Ok(materials),
                Event::PI(_) | Event::Comment(_) => {}
                Event::Text(t) if is_blank(&t) => {}
                other => return Err(self.error(format!("{} after </Materials>", kind(&other)))),
            }
        }
    }

    /// The children of `<Materials>`, up to its end tag.
    fn materials(&mut self) -> Result<Vec<MaterialData>, FormatError> {
        let mut materials = Vec::new();
        loop {
            match self.next()? {
                Event::Start(e) if e.name().as_ref() == "Material" => {
                    let m = self.material(materials.len())?;
                    materials.push(m);
                }
                Event::Empty(e) if e.name().as_ref() == "Material" => {
                    materials.push(MaterialData::default());
                }
                Event::Start(e) => self.skip(&e)?,
                Event::Empty(_) | Event::Comment(_) | Event::PI(_) => {}
                Event::Text(t) if is_blank(&t) => {}
                Event::End(_) => return Ok(materials),
                Event::Eof => {
                    return Err(self.error("the document ends inside <Materials>".to_owned()));
                }
                other => {
                    let what = kind(&other);
                    return Err(
                        self.error(format!("{what} inside <Materials>, outside any <Material>"))
                    );
                }
            }
        }
    }

    /// The children of `<Material>` number `index`, up to its end tag.
    fn material(&mut self, index: usize) -> Result<MaterialData, FormatError> {
        self.material = Some(index);
        let mut m = MaterialData::default();
        let mut seen = 0u16;
        loop {
            let (start, empty) = match self.next()? {
                Event::Start(e) => (e, false),
                Event::Empty(e) => (e, true),
                Event::Comment(_) | Event::PI(_) => continue,
                Event::Text(t) if is_blank(&t) => continue,
                Event::End(_) => break,
                Event::Eof => {
                    return Err(self.error("the document ends inside <Material>".to_owned()));
                }
                other => {
                    let what = kind(&other);
                    return Err(
                        self.error(format!("{what} inside <Material>, outside its elements"))
                    );
                }
            };
            let Some(field) = Field::from_tag(start.name().as_ref()) else {
                if !empty {
                    self.skip(&start)?;
                }
                continue;
            };
            self.element = Some(tag_name(&start));
            let bit = 1u16 << field as u16;
            if seen & bit != 0 {
                return Err(self.error("appears twice".to_owned()));
            }
            seen |= bit;
            if let Some(text) = field.text(&mut m) {
                if !empty {
                    *text = self.text_content()?;
                }
            } else if let Some(color) = field.color(&mut m) {
                *color = self.color(&start)?;
                if !empty {
                    self.no_content()?;
                }
            }
            self.element = None;
        }
        self.material = None;
        Ok(m)
    }

    /// The text of a text element, up to its end tag, exactly as written (entities resolved).
    fn text_content(&mut self) -> Result<String, FormatError> {
        let mut text = String::new();
        loop {
            match self.next()? {
                Event::Text(t) => text.push_str(&t),
                Event::CData(c) => text.push_str(&c.into_inner()),
                Event::GeneralRef(r) => match r.resolve_char_ref() {
                    Ok(Some(ch)) => text.push(ch),
                    Ok(None) => match resolve_predefined_entity(&r) {
                        Some(s) => text.push_str(s),
                        None => return Err(self.error(format!("unknown entity &{};", &*r))),
                    },
                    Err(e) => return Err(self.error(format!("character reference &{};: {e}", &*r))),
                },
                Event::Comment(_) | Event::PI(_) => {}
                Event::End(_) => return Ok(text),
                Event::Start(e) | Event::Empty(e) => {
                    return Err(
                        self.error(format!("element <{}> inside a text element", tag_name(&e)))
                    );
                }
                Event::Eof => {
                    return Err(self.error("the document ends inside this element".to_owned()));
                }
                Event::Decl(_) | Event::DocType(_) => {
                    return Err(self.error("declaration inside an element".to_owned()));
                }
            }
        }
    }

    /// The `R G B A` attributes of a colour element; a missing one is 0.
    fn color(&self, start: &BytesStart<'_>) -> Result<Color, FormatError> {
        let mut color = [0.0f32; 4];
        for attribute in start.attributes() {
            let attribute = attribute.map_err(|e| self.error(format!("{e}")))?;
            let slot = match attribute.key.as_ref() {
                "R" => 0,
                "G" => 1,
                "B" => 2,
                "A" => 3,
                _ => continue,
            };
            let name = ["R", "G", "B", "A"][slot];
            let value = attribute
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|e| self.error(format!("attribute {name}: {e}")))?;
            color[slot] = parse_float(&value).ok_or_else(|| {
                self.error(format!("attribute {name}: {value:?} is not a number"))
            })?;
        }
        Ok(color)
    }

    /// Up to the end tag of an element that should hold nothing (blank text and comments pass).
    fn no_content(&mut self) -> Result<(), FormatError> {
        loop {
            match self.next()? {
                Event::End(_) => return Ok(()),
                Event::Comment(_) | Event::PI(_) => {}
                Event::Text(t) if is_blank(&t) => {}
                Event::Eof => {
                    return Err(self.error("the document ends inside this element".to_owned()));
                }
                other => {
                    return Err(self.error(format!("{} inside a colour element", kind(&other))));
                }
            }
        }
    }

    /// Skips an unknown element and everything in it.
    fn skip(&mut self, start: &BytesStart<'a>) -> Result<(), FormatError> {
        let end = start.to_end().into_owned();
        self.reader
            .read_to_end(end.name())
            .map(|_| ())
            .map_err(|e| self.error_at(self.reader.error_position(), format!("{e}")))
    }
}

/// What an unexpected event is, for error messages.
fn kind(event: &Event<'_>) -> &'static str {
    match event {
        Event::Start(_) | Event::Empty(_) => "element",
        Event::End(_) => "end tag",
        Event::Text(_) | Event::GeneralRef(_) => "text",
        Event::CData(_) => "CDATA",
        Event::Comment(_) => "comment",
        Event::Decl(_) => "XML declaration",
        Event::PI(_) => "processing instruction",
        Event::DocType(_) => "DOCTYPE",
        Event::Eof => "end of the text",
    }
}

fn tag_name(e: &BytesStart<'_>) -> String {
    e.name().as_ref().to_owned()
}

fn is_blank(text: &str) -> bool {
    text.bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

/// A number as `%.8g` prints it, or as a person would write it: `1`, `-0.5`, `1e-05`, `inf`,
/// `-nan`; whitespace around it is ignored.
fn parse_float(s: &str) -> Option<f32> {
    s.trim_matches(|c| matches!(c, ' ' | '\t' | '\r' | '\n'))
        .parse()
        .ok()
}
