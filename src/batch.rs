//! Converting an asset tree: `kiln convert`'s driver over many inputs.
//!
//! 1. [`expand`] turns arguments (files, folders, quoted globs, `@list.txt`) into model files,
//!    each with the folder its output path is taken relative to.
//! 2. [`plan`] gives each input its output stem (`OUT/REL/NAME`), mirroring its path relative
//!    to the base folder, and refuses, before anything is written, two inputs that would write
//!    the same files (names that differ only in case included: they collide on Windows and
//!    macOS).
//! 3. [`run`] converts them on `jobs` threads. Each conversion reads its inputs through a
//!    recorder, so its manifest ([`crate::manifest`]) and the depfile list every file it read;
//!    an input whose manifest still matches is skipped. Outputs are committed one input at a
//!    time in the order of their output paths, whatever the thread count or the order of the
//!    arguments, so that the choices that depend on other inputs (a texture name another input
//!    already writes with other bytes, a clip name taken) come out the same every time; rows
//!    are reported in input order.
//!
//! Every file is written under a temporary name and renamed. A failed input leaves no output of
//! its own behind, neither new nor from an earlier run (a build must not pick up stale files);
//! outputs shared with other inputs (a texture two models use) stay. An input converted again
//! moves its earlier `.mesh` aside before it imports (`discard_old_mesh`) and unlinks it on a
//! thread of its own beside the commit's writes, so that freeing a large file is not part of
//! the commit's rename.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use kiln_scene::Warning;

use crate::codes;
use crate::encode::{
    Layout, MeshStream, OutputFile, encode_parts_taking_vertices, mesh_file_name, mesh_file_name_of,
};
use crate::error::{Error, Result};
use crate::load::{
    Files, InputFormat, Loaded, TextureSource, import_bytes_for_engine, process_scene_with,
};
use crate::manifest::{
    InputRecord, Manifest, OptionsRecord, OutputKind, OutputRecord, SUFFIX, content_hash, hex,
};
use crate::pipeline::{ConvertOptions, Summary, write_atomically, write_atomically_with};

/// A model to convert.
#[derive(Clone, Debug)]
pub enum Input {
    /// A model file.
    File(PathBuf),
    /// A model read from standard input: its bytes, format and the name of its outputs.
    Stdin {
        /// The bytes read.
        bytes: Vec<u8>,
        /// `--format`.
        format: InputFormat,
        /// The outputs' `NAME`.
        name: String,
    },
}

impl Input {
    /// The input as the user gave it (`-` for standard input).
    pub fn display(&self) -> String {
        match self {
            Input::File(p) => p.display().to_string(),
            Input::Stdin { .. } => "-".into(),
        }
    }
}

/// A model file found by [`expand`] and the folder its output path is relative to by default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The model file.
    pub file: PathBuf,
    /// The folder argument it was found in, a glob's fixed prefix, or the file's own folder.
    pub root: PathBuf,
}

/// Why arguments cannot be turned into inputs.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExpandError {
    /// A glob pattern is malformed.
    #[error("{pattern}: bad pattern: {why}")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// What is wrong.
        why: String,
    },
    /// A glob matched no model file.
    #[error("{0}: matches no .fbx or .obj file")]
    NoMatch(String),
    /// A folder or list cannot be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The folder or list.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Whether `path` names a model kiln reads, by its extension in any case.
fn is_model(path: &Path) -> bool {
    InputFormat::of(path).is_some()
}

/// Turns arguments into model files: a folder gives every `.fbx`/`.obj` under it (recursively,
/// in sorted order, hidden entries skipped), a pattern with `*`, `?` or `[` the model files it
/// matches, `@FILE` the arguments listed in FILE (one per line, blank lines and `#` comments
/// skipped, relative to the list's folder), anything else itself (a missing file is the
/// conversion's error, reported with the others). Duplicates are dropped, the first kept.
pub fn expand(args: &[String]) -> Result<Vec<Found>, ExpandError> {
    let mut out = Vec::new();
    for a in args {
        expand_one(a, Path::new(""), &mut out, 0)?;
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|f| seen.insert(normalize(&absolute(&f.file))));
    Ok(out)
}

fn expand_one(
    arg: &str,
    relative_to: &Path,
    out: &mut Vec<Found>,
    depth: u32,
) -> Result<(), ExpandError> {
    if let Some(list) = arg.strip_prefix('@') {
        let path = relative_to.join(list);
        let text = fs::read_to_string(&path).map_err(|source| ExpandError::Read {
            path: path.clone(),
            source,
        })?;
        let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            // A list naming a list is followed a few levels deep, not forever.
            if line.starts_with('@') && depth >= 8 {
                continue;
            }
            expand_one(line, &folder, out, depth + 1)?;
        }
        return Ok(());
    }
    let path = relative_to.join(arg);
    if arg.contains(['*', '?', '[']) {
        let pattern = path.to_string_lossy().into_owned();
        let paths = glob::glob(&pattern).map_err(|e| ExpandError::Pattern {
            pattern: arg.to_string(),
            why: e.msg.to_string(),
        })?;
        let root = glob_root(&path);
        let mut found: Vec<PathBuf> = paths
            .flatten()
            .filter(|p| p.is_file() && is_model(p))
            .collect();
        found.sort();
        if found.is_empty() {
            return Err(ExpandError::NoMatch(arg.to_string()));
        }
        out.extend(found.into_iter().map(|file| Found {
            file,
            root: root.clone(),
        }));
        return Ok(());
    }
    if path.is_dir() {
        let mut files = Vec::new();
        walk(&path, &mut files)?;
        if files.is_empty() {
            // Left in, to fail with the others: a folder argument must give something.
            files.push(path.clone());
        }
        out.extend(files.into_iter().map(|file| Found {
            file,
            root: path.clone(),
        }));
        return Ok(());
    }
    out.push(Found {
        root: folder_of(&path),
        file: path,
    });
    Ok(())
}

/// The model files under `dir`, sorted, hidden entries (`.name`) skipped.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), ExpandError> {
    let read = fs::read_dir(dir).map_err(|source| ExpandError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut entries: Vec<_> = read.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if e.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            walk(&path, out)?;
        } else if is_model(&path) && (kind.is_file() || kind.is_symlink()) {
            // A link is kept whatever it points to: a broken one fails with the others, it is
            // not skipped unseen (a link to a folder fails as a folder; links are not followed
            // into folders, so a tree with a loop still ends).
            out.push(path);
        }
    }
    Ok(())
}

/// The folders of a glob before its first component with a wildcard.
fn glob_root(pattern: &Path) -> PathBuf {
    let mut root = PathBuf::new();
    for c in pattern.components() {
        if c.as_os_str().to_string_lossy().contains(['*', '?', '[']) {
            break;
        }
        root.push(c);
    }
    if root == pattern {
        root.pop();
    }
    root
}

fn folder_of(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// `path` made absolute against the working folder, without touching the file system.
fn absolute(path: &Path) -> PathBuf {
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Drops `.` components and folds `x/..`, lexically (no symbolic link is followed).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// `path` with `/` separators, for manifests (the same on every system).
fn slashed(path: &Path) -> String {
    let mut s = String::new();
    for c in path.components() {
        if !s.ends_with('/') && (!s.is_empty() || c == Component::RootDir) {
            s.push('/');
        }
        if c != Component::RootDir {
            s.push_str(&c.as_os_str().to_string_lossy());
        }
    }
    s
}

/// `to` relative to the folder `from`, both absolute and normalised.
fn relative(to: &Path, from: &Path) -> PathBuf {
    let a: Vec<Component> = to.components().collect();
    let b: Vec<Component> = from.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &a[common..] {
        out.push(c);
    }
    out
}

/// One input of a [`plan`]: what it is and where its outputs go.
#[derive(Clone, Debug)]
pub struct Job {
    /// The model.
    pub input: Input,
    /// The output stem relative to the output folder: `REL/NAME` (no extension).
    pub stem: PathBuf,
    /// The model relative to the base folder, with `/` (`-` for standard input): the manifest's
    /// `model`.
    pub model: String,
}

impl Job {
    /// The outputs' `NAME`.
    pub fn name(&self) -> String {
        self.stem
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model".into())
    }

    /// The folder its outputs go to.
    pub fn out_dir(&self, out: &Path) -> PathBuf {
        out.join(self.stem.parent().unwrap_or(Path::new("")))
    }

    /// Its manifest's path.
    pub fn manifest_path(&self, out: &Path) -> PathBuf {
        self.out_dir(out).join(format!("{}{SUFFIX}", self.name()))
    }
}

/// Why inputs cannot be converted together.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// Two inputs would write the same outputs.
    #[error(
        "{first} and {second} would both write {}.mesh (and its .xml and manifest) in the output folder; convert them into different folders or rename one",
        .output.display()
    )]
    Collision {
        /// The earlier input.
        first: String,
        /// The later one.
        second: String,
        /// The output stem both give.
        output: PathBuf,
    },
    /// An input is not under `--base`.
    #[error("{input} is not under the base folder {}", .base.display())]
    NotUnderBase {
        /// The input.
        input: String,
        /// The base.
        base: PathBuf,
    },
}

/// Gives each input its output stem: its path relative to `base` (default: the deepest folder
/// holding every input's [`Found::root`]) without the extension. Two inputs with the same stem
/// (ignoring case) are an error naming both.
pub fn plan(
    found: Vec<Found>,
    stdin: Option<Input>,
    base: Option<&Path>,
) -> Result<Vec<Job>, PlanError> {
    let base = match base {
        Some(b) => normalize(&absolute(b)),
        None => common_folder(found.iter().map(|f| normalize(&absolute(&f.root)))),
    };
    let mut jobs = Vec::with_capacity(found.len() + 1);
    for f in found {
        let abs = normalize(&absolute(&f.file));
        let rel = abs
            .strip_prefix(&base)
            .map_err(|_| PlanError::NotUnderBase {
                input: f.file.display().to_string(),
                base: base.clone(),
            })?
            .to_path_buf();
        // Never a path that leaves the output folder.
        if rel.has_root() || rel.components().any(|c| !matches!(c, Component::Normal(_))) {
            return Err(PlanError::NotUnderBase {
                input: f.file.display().to_string(),
                base: base.clone(),
            });
        }
        let mut stem = rel.clone();
        stem.set_extension("");
        if stem.file_name().is_none_or(|n| n.is_empty()) {
            stem.set_file_name("model");
        }
        jobs.push(Job {
            model: slashed(&rel),
            stem,
            input: Input::File(f.file),
        });
    }
    if let Some(input @ Input::Stdin { .. }) = stdin {
        jobs.push(Job {
            stem: PathBuf::from(input_name(&input)),
            model: "-".into(),
            input,
        });
    }
    let mut by_stem: HashMap<String, usize> = HashMap::new();
    for (i, j) in jobs.iter().enumerate() {
        if let Some(&first) = by_stem.get(&slashed(&j.stem).to_lowercase()) {
            return Err(PlanError::Collision {
                first: jobs[first].input.display(),
                second: j.input.display(),
                output: j.stem.clone(),
            });
        }
        by_stem.insert(slashed(&j.stem).to_lowercase(), i);
    }
    Ok(jobs)
}

/// The outputs' name of a standard-input job, the stem of a file's.
fn input_name(input: &Input) -> &str {
    match input {
        Input::Stdin { name, .. } => name,
        Input::File(p) => p.file_stem().and_then(|s| s.to_str()).unwrap_or("model"),
    }
}

fn common_folder(mut folders: impl Iterator<Item = PathBuf>) -> PathBuf {
    let Some(mut common) = folders.next() else {
        return PathBuf::new();
    };
    for f in folders {
        while !f.starts_with(&common) {
            if !common.pop() {
                return PathBuf::new();
            }
        }
    }
    common
}

/// What is done with the textures a model's materials use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TextureMode {
    /// Copied beside the outputs (or into the texture folder), one file per distinct content.
    #[default]
    Copy,
    /// Not copied: the materials name the source file, relative to the output folder
    /// (embedded textures are still written out).
    Reference,
    /// Not copied and not looked for: the materials keep the bare file names.
    Skip,
}

impl TextureMode {
    fn as_str(self) -> &'static str {
        match self {
            TextureMode::Copy => "copy",
            TextureMode::Reference => "reference",
            TextureMode::Skip => "skip",
        }
    }
}

/// Which warnings fail an input (nothing of it is written then).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarningPolicy {
    /// Every warning fails (`--strict`), but those `allow` lists.
    pub deny_all: bool,
    /// Codes that fail (`--deny`); `PREFIX.*` names a whole crate's (`obj.*`).
    pub deny: Vec<String>,
    /// Codes that never fail (`--allow`), which wins over `deny`.
    pub allow: Vec<String>,
}

fn code_matches(pattern: &str, code: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => code.starts_with(prefix),
        None => pattern == code,
    }
}

impl WarningPolicy {
    /// Whether a warning with `code` fails its input.
    pub fn denies(&self, code: &str) -> bool {
        if self.allow.iter().any(|p| code_matches(p, code)) {
            return false;
        }
        self.deny_all || self.deny.iter().any(|p| code_matches(p, code))
    }
}

/// How a batch converts.
#[derive(Clone, Debug, Default)]
pub struct BatchOptions {
    /// Loading and encoding.
    pub convert: ConvertOptions,
    /// The output folder.
    pub out: PathBuf,
    /// Convert even inputs whose manifest still matches.
    pub force: bool,
    /// Inputs converted at once (0: one per core).
    pub jobs: usize,
    /// Textures.
    pub textures: TextureMode,
    /// A folder, relative to each output folder, textures are copied into.
    pub texture_dir: Option<String>,
    /// Only the animations of these names become clips (`None`: all).
    pub clips: Option<Vec<String>>,
    /// Which warnings fail an input.
    pub policy: WarningPolicy,
}

impl BatchOptions {
    /// The options as a manifest records them.
    pub fn record(&self) -> OptionsRecord {
        use kiln_format::kiln::Quantize;
        let e = &self.convert.encode;
        OptionsRecord {
            layout: match e.layout {
                Layout::Kiln => "kiln",
                Layout::Classic => "classic",
            }
            .into(),
            quantize: match e.quantize {
                Quantize::None => "none",
                Quantize::Attributes => "attributes",
                Quantize::AttributesAndPositions => "attributes-and-positions",
            }
            .into(),
            pre_transform: self.convert.load.pre_transform,
            clip_rate: self.convert.load.clip_frame_rate,
            textures: self.textures.as_str().into(),
            texture_dir: self.texture_dir.clone(),
            clips: self.clips.clone(),
            units: self.convert.load.units.map(|u| u.name().to_string()),
            scale: self.convert.load.scale,
            up: self.convert.load.up.map(axis_name),
            forward: self.convert.load.forward.map(axis_name),
            name_style: match self.convert.load.name_style {
                crate::load::NameStyle::Original => None,
                style => Some(style.name().to_string()),
            },
        }
    }
}

/// `+x`, `-z`…
fn axis_name(a: kiln_process::Axis) -> String {
    format!(
        "{}{}",
        if a.negative { '-' } else { '+' },
        ['x', 'y', 'z'][a.index as usize % 3]
    )
}

/// How an input ended.
#[derive(Debug)]
pub enum Status {
    /// Converted and written.
    Converted,
    /// Its manifest still matched: nothing was read but the hashes, nothing written.
    UpToDate,
    /// It failed; nothing of it is left in the output folder.
    Failed(Error),
}

/// One input's result, reported in input order.
#[derive(Debug)]
pub struct Row {
    /// The input's position among the batch's inputs.
    pub index: usize,
    /// The input as given.
    pub input: String,
    /// How it ended.
    pub status: Status,
    /// Its warnings (none for an input up to date: its manifest has their counts only).
    pub warnings: Vec<Warning>,
    /// How many warnings of each code (an input up to date: from its manifest).
    pub warning_counts: BTreeMap<String, usize>,
    /// The files it wrote (or, up to date, had written), manifest last, with their records.
    pub outputs: Vec<(PathBuf, OutputRecord)>,
    /// Its manifest's path, when it has one now.
    pub manifest: Option<PathBuf>,
    /// Every file read, as opened (the depfile's prerequisites).
    pub inputs: Vec<PathBuf>,
    /// The counts of a converted model.
    pub summary: Option<Summary>,
    /// Bytes of the model file.
    pub input_bytes: u64,
    /// Wall time of the input.
    pub milliseconds: f64,
    /// Earlier outputs deleted because this run no longer writes them (or the input failed).
    pub removed: Vec<PathBuf>,
}

/// What the caller sees while a batch runs; called from the batch's threads.
pub trait Events: Sync {
    /// A thread started on `job`.
    fn started(&self, _job: &Job) {}
    /// An input is done; called in input order.
    fn finished(&self, row: &Row);
}

/// Sets the number of threads that the conversions inside one file share (rayon's pool); the
/// first call wins. `0`: one per core.
pub fn set_threads(threads: usize) {
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global();
}

/// Converts every job of a [`plan`] into `options.out`; returns the rows in input order.
pub fn run(jobs: &[Job], options: &BatchOptions, events: &dyn Events) -> Vec<Row> {
    let n = jobs.len();
    let threads = match options.jobs {
        0 => std::thread::available_parallelism().map_or(1, |t| t.get()),
        j => j,
    }
    .clamp(1, n.max(1));
    // Commit order: by output path (then input), so that what depends on other inputs is the
    // same whatever the order of the arguments.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_cached_key(|&i| (slashed(&jobs[i].stem), jobs[i].model.clone(), i));
    let record = options.record();
    let shared = Shared {
        next_job: AtomicUsize::new(0),
        discards: Discards::default(),
        commit: Mutex::new(CommitState::default()),
        turn: Condvar::new(),
        report: Mutex::new(Report {
            next: 0,
            pending: BTreeMap::new(),
            rows: Vec::with_capacity(n),
        }),
    };
    let work = || {
        loop {
            let k = shared.next_job.fetch_add(1, Ordering::Relaxed);
            if k >= n {
                break;
            }
            let index = order[k];
            let job = &jobs[index];
            events.started(job);
            let row = convert_one(index, k, job, options, &record, &shared);
            shared.finish(row, events);
        }
    };
    if threads == 1 {
        // One worker: this thread (no thread to start, and one file converts as it did
        // before batches).
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(work);
            }
        });
    }
    // No file moved aside outlives the batch.
    shared.discards.join_all();
    shared
        .report
        .into_inner()
        .map(|r| r.rows)
        .unwrap_or_default()
}

struct Shared {
    next_job: AtomicUsize,
    /// Unlinks of earlier `.mesh` files moved aside, running beside the conversions.
    discards: Discards,
    commit: Mutex<CommitState>,
    turn: Condvar,
    report: Mutex<Report>,
}

struct Report {
    next: usize,
    pending: BTreeMap<usize, Row>,
    rows: Vec<Row>,
}

impl Shared {
    /// Runs `f` when every input before `position` in commit order has committed.
    fn in_turn<T>(&self, position: usize, f: impl FnOnce(&mut CommitState) -> T) -> T {
        let mut state = self.commit.lock().unwrap_or_else(|p| p.into_inner());
        while state.next != position {
            state = self.turn.wait(state).unwrap_or_else(|p| p.into_inner());
        }
        let out = f(&mut state);
        state.next += 1;
        self.turn.notify_all();
        out
    }

    fn finish(&self, row: Row, events: &dyn Events) {
        let mut r = self.report.lock().unwrap_or_else(|p| p.into_inner());
        r.pending.insert(row.index, row);
        loop {
            let next = r.next;
            let Some(row) = r.pending.remove(&next) else {
                break;
            };
            events.finished(&row);
            r.rows.push(row);
            r.next += 1;
        }
    }
}

/// What the committed inputs own, for the next ones.
#[derive(Default)]
struct CommitState {
    /// Next position in commit order.
    next: usize,
    /// Output path (lower case) → the input writing it and the content's hash.
    claims: HashMap<String, Claim>,
    /// Output folder → other manifests there (file name → their outputs' paths and hashes).
    folders: HashMap<PathBuf, BTreeMap<String, Vec<(String, String)>>>,
}

struct Claim {
    owner: String,
    hash: String,
    texture: bool,
}

fn claim_key(path: &Path) -> String {
    slashed(&normalize(path)).to_lowercase()
}

impl CommitState {
    /// The other manifests of `dir` (read once per batch).
    fn folder(&mut self, dir: &Path) -> &mut BTreeMap<String, Vec<(String, String)>> {
        self.folders.entry(dir.to_path_buf()).or_insert_with(|| {
            let mut map = BTreeMap::new();
            for e in fs::read_dir(dir).into_iter().flatten().flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if !name.ends_with(SUFFIX) {
                    continue;
                }
                if let Some(m) = Manifest::read(&e.path()) {
                    map.insert(name, outputs_of(&m));
                }
            }
            map
        })
    }

    /// Whether `path` (in `dir`) is written by another input of the batch or listed by another
    /// manifest of `dir`, with a content other than `hash` (`None`: with any content, that is,
    /// used elsewhere at all).
    fn taken(
        &mut self,
        dir: &Path,
        rel: &str,
        me: &str,
        manifest: &str,
        hash: Option<&str>,
    ) -> bool {
        let full = dir.join(rel);
        if let Some(c) = self.claims.get(&claim_key(&full)) {
            if c.owner != me && (!c.texture || hash.is_none_or(|h| h != c.hash)) {
                return true;
            }
        }
        self.folder(dir).iter().any(|(name, outs)| {
            name != manifest
                && outs
                    .iter()
                    .any(|(p, h)| p.eq_ignore_ascii_case(rel) && hash.is_none_or(|mine| mine != h))
        })
    }
}

fn outputs_of(m: &Manifest) -> Vec<(String, String)> {
    m.outputs
        .iter()
        .map(|o| (o.path.clone(), o.xxh3.clone()))
        .collect()
}

/// Records every file a conversion reads or looks for.
struct Recorder {
    reads: Vec<(PathBuf, u64, String)>,
    absent: Vec<PathBuf>,
}

impl Files for Recorder {
    fn read(&mut self, path: &Path) -> std::io::Result<Vec<u8>> {
        match read_whole(path) {
            Ok(bytes) => {
                if !self.reads.iter().any(|(p, ..)| p == path) {
                    self.reads
                        .push((path.to_path_buf(), bytes.len() as u64, content_hash(&bytes)));
                }
                Ok(bytes)
            }
            Err(e) => {
                self.absent.push(path.to_path_buf());
                Err(e)
            }
        }
    }

    fn is_file(&mut self, path: &Path) -> bool {
        let is = path.is_file();
        if !is {
            self.absent.push(path.to_path_buf());
        }
        is
    }
}

/// From this size a file is read in two halves at once.
const SPLIT_READ: u64 = 1 << 20;

/// A file's bytes, as `fs::read` gives them. A large one is read in two halves at once, on
/// two of rayon's threads (positional reads into one buffer): the copy out of the page cache
/// and the faults on the fresh buffer were 4-5 ms of one core for a 12 MB model, with
/// nothing else to do until they were done. A file whose size changed meanwhile is read
/// again whole.
fn read_whole(path: &Path) -> std::io::Result<Vec<u8>> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let file = fs::File::open(path)?;
        let len = file.metadata()?.len();
        if len >= SPLIT_READ && rayon::current_num_threads() > 1 {
            if let Ok(n) = usize::try_from(len) {
                let mut bytes = vec![0u8; n];
                let (a, b) = bytes.split_at_mut(n / 2);
                let at = a.len() as u64;
                let (ra, rb) =
                    rayon::join(|| file.read_exact_at(a, 0), || file.read_exact_at(b, at));
                if ra.is_ok() && rb.is_ok() && matches!(file.read_at(&mut [0u8; 1], len), Ok(0)) {
                    return Ok(bytes);
                }
            }
        }
    }
    fs::read(path)
}

/// A path as a manifest records an input: relative to the model's folder.
fn input_rel(path: &Path, model_dir: &Path) -> String {
    slashed(path.strip_prefix(model_dir).unwrap_or(path))
}

/// A texture a conversion uses, read.
struct Texture {
    source: TextureSource,
    from: Option<PathBuf>,
    bytes: Vec<u8>,
    hash: String,
}

/// A model loaded and its textures read, waiting for its turn to commit.
struct Prepared {
    /// The model; for a classic `.mesh`, its parts without their vertices, which `pending`
    /// builds as the mesh is written.
    loaded: Loaded,
    pending: Option<kiln_extract::PendingVertices>,
    textures: Vec<Texture>,
    warnings: Vec<Warning>,
    recorder: Recorder,
}

fn convert_one(
    index: usize,
    position: usize,
    job: &Job,
    options: &BatchOptions,
    record: &OptionsRecord,
    shared: &Shared,
) -> Row {
    let start = Instant::now();
    let mut row = Row {
        index,
        input: job.input.display(),
        status: Status::Converted,
        warnings: Vec::new(),
        warning_counts: BTreeMap::new(),
        outputs: Vec::new(),
        manifest: None,
        inputs: Vec::new(),
        summary: None,
        input_bytes: 0,
        milliseconds: 0.0,
        removed: Vec::new(),
    };
    let out_dir = job.out_dir(&options.out);
    let manifest_path = job.manifest_path(&options.out);
    let old = Manifest::read(&manifest_path);
    // The heavy part runs outside the turn, on as many threads as there are jobs.
    let mut discarded = None;
    let prepared = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        prepare(job, options, record, old.as_ref(), &out_dir, &mut discarded)
    }))
    .unwrap_or_else(|panic| {
        Err(Error::Internal(panic_text(&panic)).with_path(job.input.display()))
    });
    row.input_bytes = match &job.input {
        Input::File(p) => fs::metadata(p).map_or(0, |m| m.len()),
        Input::Stdin { bytes, .. } => bytes.len() as u64,
    };
    // The earlier `.mesh`, moved aside before the import, is unlinked now, beside the
    // writes: the import keeps every core busy, the writes leave a third of them idle.
    if let Some((_, aside)) = &discarded {
        shared.discards.unlink(aside.clone());
    }
    shared.in_turn(position, |state| {
        let me = job.input.display();
        let manifest_name = format!("{}{SUFFIX}", job.name());
        let result = match prepared {
            Ok(Step::UpToDate(m)) => {
                keep(state, job, &out_dir, &manifest_path, *m, &mut row);
                Ok(())
            }
            Ok(Step::Convert(p)) => commit(
                state,
                job,
                options,
                record,
                *p,
                old.as_ref(),
                &out_dir,
                &manifest_path,
                &mut row,
            ),
            Err(e) => Err(e),
        };
        if let Err(e) = result {
            // Nothing of a failed input stays: not this run's files, not an earlier run's.
            for (path, _) in std::mem::take(&mut row.outputs) {
                let _ = fs::remove_file(&path);
            }
            row.removed.extend(discarded.take().map(|(path, _)| path));
            if let Some(old) = &old {
                remove_outputs(state, &out_dir, &me, &manifest_name, old, &[], &mut row);
                if fs::remove_file(&manifest_path).is_ok() {
                    row.removed.push(manifest_path.clone());
                }
            }
            state.folder(&out_dir).remove(&manifest_name);
            row.manifest = None;
            // Every error line names the input first, also when it is about an output.
            let e = match e.path() {
                Some(p) if p == Path::new(&me) => e,
                _ => e.with_path(&me),
            };
            row.status = Status::Failed(e);
        }
    });
    row.milliseconds = start.elapsed().as_secs_f64() * 1e3;
    if let Some(s) = &mut row.summary {
        s.milliseconds = row.milliseconds;
    }
    row
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

enum Step {
    UpToDate(Box<Manifest>),
    Convert(Box<Prepared>),
}

/// Reads the model; when its manifest still matches, stops there; otherwise loads it and reads
/// its textures.
fn prepare(
    job: &Job,
    options: &BatchOptions,
    record: &OptionsRecord,
    old: Option<&Manifest>,
    out_dir: &Path,
    discarded: &mut Option<(PathBuf, PathBuf)>,
) -> Result<Step> {
    let mut recorder = Recorder {
        reads: Vec::new(),
        absent: Vec::new(),
    };
    let (path, bytes, format) = match &job.input {
        Input::File(path) => {
            if path.is_dir() {
                return Err(Error::IsDirectory.with_path(path));
            }
            let format =
                InputFormat::of(path).ok_or_else(|| Error::UnsupportedType.with_path(path))?;
            let bytes = recorder
                .read(path)
                .map_err(|e| Error::Open(e).with_path(path))?;
            (path.clone(), std::borrow::Cow::Owned(bytes), format)
        }
        Input::Stdin {
            bytes,
            format,
            name,
        } => {
            let ext = match format {
                InputFormat::Obj => "obj",
                InputFormat::Fbx => "fbx",
            };
            recorder
                .reads
                .push((PathBuf::from("-"), bytes.len() as u64, content_hash(bytes)));
            (
                PathBuf::from(format!("{name}.{ext}")),
                std::borrow::Cow::Borrowed(&bytes[..]),
                *format,
            )
        }
    };
    let model_dir = folder_of(&path);
    // Warnings the policy now denies are converted again, so that their messages are printed
    // with the failure (a manifest keeps only their counts).
    let denied_before = |m: &Manifest| m.warnings.keys().any(|c| options.policy.denies(c));
    if let Some(old) = old.filter(|m| !options.force && !denied_before(m)) {
        if up_to_date(old, job, record, &recorder.reads[0].2, &model_dir, out_dir) {
            return Ok(Step::UpToDate(Box::new(old.clone())));
        }
    }
    if let Some(old) = old {
        *discarded = discard_old_mesh(job, old, out_dir, &job.manifest_path(&options.out));
    }
    let scene = import_bytes_for_engine(&path, &bytes, format, &mut recorder)?;
    drop(bytes);
    // A `.mesh` is written straight from the scene's arrays, its vertices built as they go
    // out: no vertex array of the whole model beside the scene (nor, in the kiln layout, its
    // streams). Not quantised kiln-layout streams, which need every vertex's bounds first.
    let defer = crate::encode::defers_vertices(&options.convert.encode);
    let (mut loaded, pending) = process_scene_with(scene, &path, &options.convert.load, defer)?;
    // Outputs are named after the job's stem (standard input: `--name`).
    loaded.name = job.name();
    let mut warnings = std::mem::take(&mut loaded.warnings);
    if let Some(keep) = &options.clips {
        let names: Vec<String> = loaded.clips.iter().map(|c| c.name.clone()).collect();
        for k in keep {
            if !names.iter().any(|n| n == k) {
                warnings.push(
                    Warning::new(
                        codes::CLIP_NOT_FOUND,
                        format!(
                            "--clips: no animation named '{k}' (it has: {})",
                            names.join(", ")
                        ),
                    )
                    .at(path.display().to_string()),
                );
            }
        }
        let mut kept = names.iter().map(|n| keep.contains(n));
        loaded.clips.retain(|_| kept.next().unwrap_or(false));
        let mut kept = names.iter().map(|n| keep.contains(n));
        loaded.clip_files.retain(|_| kept.next().unwrap_or(false));
    }
    let mut textures: Vec<Texture> = Vec::new();
    if options.textures != TextureMode::Skip {
        let sources: Vec<TextureSource> = loaded
            .materials
            .iter()
            .flatten()
            .flat_map(|m| m.textures().cloned())
            .collect();
        for source in sources {
            if source.file_name().is_empty() || textures.iter().any(|t| t.source == source) {
                continue;
            }
            match loaded.find_texture(&source, &mut recorder) {
                Ok((from, bytes)) => textures.push(Texture {
                    hash: content_hash(&bytes),
                    source,
                    from,
                    bytes,
                }),
                Err(why) => warnings.push(
                    Warning::new(codes::TEXTURE_MISSING, why.to_string())
                        .at(source.file_name().to_string()),
                ),
            }
        }
    }
    Ok(Step::Convert(Box::new(Prepared {
        loaded,
        pending,
        textures,
        warnings,
        recorder,
    })))
}

/// Moves the `.mesh` an earlier run wrote (as `old` records it, unchanged since: its recorded
/// size and not newer than its manifest) out of the way before the conversion; returns its
/// path and where it went, which the caller unlinks on a thread of its own once the import is
/// done (beside the writes, which leave a core idle a third of the time; the import keeps
/// both busy: at 400k triangles into tmpfs, paired wall 0.967 against the unlink beside the
/// import, the same on ext4). This conversion writes that name again or, failing, removes it,
/// so it goes either way; what moving it early saves is the unlink inside the commit's
/// rename: freeing a large file's pages and blocks takes ~30 ms per 60 MB on ext4 (measured
/// in `docs/performance.md`). The name is the job's own (`plan` refuses two inputs with one
/// stem), so no other input's output can be taken.
fn discard_old_mesh(
    job: &Job,
    old: &Manifest,
    out_dir: &Path,
    manifest_path: &Path,
) -> Option<(PathBuf, PathBuf)> {
    let file = mesh_file_name_of(&job.name());
    let record = old
        .outputs
        .iter()
        .find(|o| o.kind == OutputKind::Mesh && o.path == file)?;
    let path = out_dir.join(&file);
    let meta = fs::symlink_metadata(&path).ok()?;
    let written = fs::metadata(manifest_path)
        .and_then(|m| m.modified())
        .ok()?;
    if !meta.is_file() || meta.len() != record.size || meta.modified().ok()? > written {
        return None;
    }
    let aside = out_dir.join(format!(".{file}.{}.old", std::process::id()));
    fs::rename(&path, &aside).ok()?;
    Some((path, aside))
}

/// The threads unlinking files moved aside. A batch that converts thousands of inputs again
/// starts one per input: those already done are joined as new ones start, so only the unlinks
/// still running hold a thread, and [`Discards::join_all`] waits for the rest.
#[derive(Default)]
struct Discards(Mutex<Vec<std::thread::JoinHandle<()>>>);

impl Discards {
    /// Unlinks `path` on a thread of its own, or here when no thread can be started (wasm32).
    fn unlink(&self, path: PathBuf) {
        let mut running = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let (done, still): (Vec<_>, Vec<_>) = running.drain(..).partition(|h| h.is_finished());
        *running = still;
        drop(running);
        for h in done {
            let _ = h.join();
        }
        let spawned = std::thread::Builder::new()
            .name("kiln-discard".into())
            .spawn({
                let path = path.clone();
                move || {
                    let _ = fs::remove_file(&path);
                }
            });
        match spawned {
            Ok(handle) => self
                .0
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(handle),
            Err(_) => {
                let _ = fs::remove_file(&path);
            }
        }
    }

    /// Waits for every unlink started.
    fn join_all(&self) {
        let running = std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()));
        for h in running {
            let _ = h.join();
        }
    }
}

/// Whether the conversion `old` records would write the same outputs now.
fn up_to_date(
    old: &Manifest,
    job: &Job,
    record: &OptionsRecord,
    model_hash: &str,
    model_dir: &Path,
    out_dir: &Path,
) -> bool {
    if old.kiln != env!("CARGO_PKG_VERSION")
        || &old.options != record
        || old.model != job.model
        || old.inputs.first().is_none_or(|m| m.xxh3 != model_hash)
    {
        return false;
    }
    let same = |path: &Path, size: u64, hash: &str| {
        fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == size)
            && fs::read(path).is_ok_and(|b| content_hash(&b) == hash)
    };
    old.inputs
        .iter()
        .skip(1)
        .all(|i| same(&model_dir.join(&i.path), i.size, &i.xxh3))
        && old.absent.iter().all(|a| !model_dir.join(a).exists())
        && old
            .outputs
            .iter()
            .all(|o| same(&out_dir.join(&o.path), o.size, &o.xxh3))
}

/// An input up to date: its outputs are claimed as they are.
fn keep(
    state: &mut CommitState,
    job: &Job,
    out_dir: &Path,
    manifest_path: &Path,
    m: Manifest,
    row: &mut Row,
) {
    let me = job.input.display();
    let model_dir = match &job.input {
        Input::File(p) => folder_of(p),
        Input::Stdin { .. } => PathBuf::new(),
    };
    for o in &m.outputs {
        let path = out_dir.join(&o.path);
        state.claims.insert(
            claim_key(&path),
            Claim {
                owner: me.clone(),
                hash: o.xxh3.clone(),
                texture: o.kind == OutputKind::Texture,
            },
        );
        row.outputs.push((path, o.clone()));
    }
    // As a conversion lists them: every file read but standard input.
    row.inputs = match &job.input {
        Input::File(_) => m.inputs.iter().map(|i| model_dir.join(&i.path)).collect(),
        Input::Stdin { .. } => m
            .inputs
            .iter()
            .skip(1)
            .map(|i| model_dir.join(&i.path))
            .collect(),
    };
    row.warning_counts = m.warnings.clone();
    row.manifest = Some(manifest_path.to_path_buf());
    row.status = Status::UpToDate;
}

/// Names the textures, encodes and writes the outputs and the manifest, removes what an
/// earlier run wrote and this one does not.
#[allow(clippy::too_many_arguments)]
fn commit(
    state: &mut CommitState,
    job: &Job,
    options: &BatchOptions,
    record: &OptionsRecord,
    prepared: Prepared,
    old: Option<&Manifest>,
    out_dir: &Path,
    manifest_path: &Path,
    row: &mut Row,
) -> Result<()> {
    let Prepared {
        mut loaded,
        mut pending,
        textures,
        mut warnings,
        recorder,
    } = prepared;
    let me = job.input.display();
    let name = job.name();
    let manifest_name = format!("{name}{SUFFIX}");
    let abs_out = normalize(&absolute(out_dir));

    // Texture names: the bare name (in the texture folder), unless another texture of this
    // input or another input's output has it with other bytes.
    let mut names: Vec<(TextureSource, String)> = Vec::new();
    let mut texture_files: Vec<(String, &Texture)> = Vec::new();
    for t in &textures {
        let bare = options.convert.load.name_style.apply(t.source.file_name());
        let in_dir = |file: &str| match &options.texture_dir {
            Some(d) => format!("{}/{file}", d.trim_end_matches('/')),
            None => file.to_string(),
        };
        let referenced = options.textures == TextureMode::Reference && t.from.is_some();
        // One file per content: the same bytes under another name are the file written already.
        let same_bytes = texture_files
            .iter()
            .find(|(_, other)| other.hash == t.hash)
            .map(|(n, _)| n.clone());
        let final_name = if let Some(n) = same_bytes.filter(|_| !referenced) {
            n
        } else if referenced {
            let from = normalize(&absolute(t.from.as_deref().unwrap_or(Path::new(""))));
            slashed(&relative(&from, &abs_out))
        } else {
            let plain = in_dir(&bare);
            let mine_differs = texture_files
                .iter()
                .any(|(n, other)| n.eq_ignore_ascii_case(&plain) && other.hash != t.hash);
            let reserved = plain.eq_ignore_ascii_case(&mesh_file_name(&loaded))
                || plain.eq_ignore_ascii_case(&format!("{name}.xml"))
                || plain.eq_ignore_ascii_case(&manifest_name)
                || loaded
                    .clip_files
                    .iter()
                    .any(|c| c.eq_ignore_ascii_case(&plain));
            if mine_differs
                || reserved
                || state.taken(out_dir, &plain, &me, &manifest_name, Some(&t.hash))
            {
                let hashed = in_dir(&hashed_name(&bare, &t.hash));
                warnings.push(
                    Warning::new(
                        codes::TEXTURE_RENAMED,
                        format!("another texture is written as '{plain}' with other bytes: this one is '{hashed}'"),
                    )
                    .at(bare.clone()),
                );
                hashed
            } else {
                plain
            }
        };
        if !referenced && !texture_files.iter().any(|(n, _)| *n == final_name) {
            texture_files.push((final_name.clone(), t));
        }
        names.push((t.source.clone(), final_name));
    }
    if let Ok(materials) = &mut loaded.materials {
        for m in materials.iter_mut() {
            let rename = |slot: &Option<TextureSource>, file: &mut String| {
                if let Some(s) = slot {
                    if let Some((_, n)) = names.iter().find(|(src, _)| src == s) {
                        *file = n.clone();
                    }
                }
            };
            rename(&m.diffuse, &mut m.data.diffuse_file);
            rename(&m.specular, &mut m.data.specular_file);
            rename(&m.normal, &mut m.data.normal_file);
        }
    }

    // The counts for the summary, before the kiln layout's encoding frees the vertices.
    let mut summary = Summary::of(&loaded, 0.0);
    if let Some(p) = &pending {
        summary.vertices = p.total();
    }
    let (encoded, mesh) =
        encode_parts_taking_vertices(&mut loaded, &options.convert.encode, pending.as_ref())
            .map_err(|e| e.with_path(&me))?;
    // The loader's warnings were taken into `warnings` when the model was prepared.
    let mut all_warnings = warnings;
    all_warnings.extend(encoded.warnings.iter().cloned());
    all_warnings.extend(crate::pipeline::skeleton_only(&loaded));
    let mut counts = BTreeMap::new();
    for w in &all_warnings {
        *counts.entry(w.code.to_string()).or_insert(0usize) += 1;
    }
    row.warnings = all_warnings;
    row.warning_counts = counts.clone();
    let denied: Vec<String> = counts
        .keys()
        .filter(|c| options.policy.denies(c))
        .cloned()
        .collect();
    if !denied.is_empty() {
        return Err(Error::Denied {
            count: denied.iter().map(|c| counts[c]).sum(),
            codes: denied,
        }
        .with_path(&me));
    }

    // Non-texture outputs another input writes are an error, before anything is written.
    let mesh_name = mesh_file_name(&loaded);
    let fixed: Vec<&str> = std::iter::once(mesh_name.as_str())
        .chain(encoded.files.iter().map(|f| f.name.as_str()))
        .chain(std::iter::once(manifest_name.as_str()))
        .collect();
    for f in &fixed {
        if state.taken(out_dir, f, &me, &manifest_name, None) {
            let full = out_dir.join(kiln_scene::names::to_path(f));
            let other = state
                .claims
                .get(&claim_key(&full))
                .map(|c| c.owner.clone())
                .unwrap_or_else(|| "an earlier conversion into this folder".into());
            return Err(Error::OutputTaken {
                output: full,
                other,
            }
            .with_path(&me));
        }
    }

    fs::create_dir_all(out_dir).map_err(|e| Error::CreateFolder(e).with_path(out_dir))?;
    let mut written: Vec<(PathBuf, OutputRecord)> = Vec::new();
    let write = |path: &Path,
                 kind: OutputKind,
                 bytes: &[u8],
                 hash: Option<&str>,
                 written: &mut Vec<_>|
     -> Result<()> {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| Error::CreateFolder(e).with_path(parent))?;
        }
        write_atomically(path, bytes).map_err(|e| Error::Write(e).with_path(path))?;
        written.push((
            path.to_path_buf(),
            OutputRecord {
                path: String::new(),
                kind,
                size: bytes.len() as u64,
                xxh3: hash.map_or_else(|| content_hash(bytes), str::to_string),
                clips: Vec::new(),
            },
        ));
        Ok(())
    };
    let result = (|| -> Result<()> {
        // The mesh first (it is the largest and most likely to fail), streamed and hashed.
        let target = out_dir.join(&mesh_name);
        let mut digest = (0u64, 0u128);
        write_atomically_with(&target, |f| {
            if let MeshStream::Kiln(file) = &mesh {
                digest = write_kiln_mesh(file, f)?;
                return Ok(());
            }
            // The size a mesh built from the pending vertices will have, reserved first.
            let reserved = pending.as_ref().and_then(|p| mesh.len_with(&loaded, p));
            if let Some(len) = reserved {
                crate::pipeline::reserve(f, len as u64);
            }
            if let (MeshStream::KilnPlanned(_), Some(p)) = (&mesh, &mut pending) {
                // Hashed as it is written, its checksum (written last) put in at the end.
                let (_, hash) = mesh.write_planned_to(p, f)?;
                digest = (f.metadata()?.len(), hash);
                return Ok(());
            }
            let mut w = HashingWriter {
                inner: std::io::BufWriter::with_capacity(1 << 16, &mut *f),
                hash: xxhash_rust::xxh3::Xxh3::new(),
                len: 0,
            };
            match &mut pending {
                Some(p) => mesh.write_pending_to(&loaded, p, &mut w)?,
                None => mesh.write_to(&loaded, &mut w)?,
            }
            w.flush()?;
            digest = (w.len, w.hash.digest128());
            drop(w);
            if reserved.is_some_and(|len| len as u64 != digest.0) {
                // Not what was reserved (never for a file kiln writes): the file is what was
                // written, not the reservation's length.
                f.set_len(digest.0)?;
            }
            Ok(())
        })
        .map_err(|e| Error::Write(e).with_path(&target))?;
        written.push((
            target,
            OutputRecord {
                path: String::new(),
                kind: OutputKind::Mesh,
                size: digest.0,
                xxh3: hex(digest.1),
                clips: loaded.clip_files.clone(),
            },
        ));
        for OutputFile { name: file, bytes } in &encoded.files {
            let kind = if file.ends_with(".xml") && *file == format!("{name}.xml") {
                OutputKind::Materials
            } else {
                OutputKind::Clip
            };
            write(
                &out_dir.join(kiln_scene::names::to_path(file)),
                kind,
                bytes,
                None,
                &mut written,
            )?;
        }
        for (file, t) in &texture_files {
            // Converting into the source folder: a texture that is its own output is left as
            // it is, and not listed as an output (so no later run ever removes a source file).
            let target = normalize(&absolute(&out_dir.join(kiln_scene::names::to_path(file))));
            if t.from
                .as_deref()
                .is_some_and(|f| normalize(&absolute(f)) == target)
            {
                continue;
            }
            write(
                &out_dir.join(kiln_scene::names::to_path(file)),
                OutputKind::Texture,
                &t.bytes,
                Some(&t.hash),
                &mut written,
            )?;
        }
        Ok(())
    })();
    for (path, rec) in &mut written {
        rec.path = slashed(path.strip_prefix(out_dir).unwrap_or(path));
    }
    row.outputs = written;
    result?;

    let model_dir = folder_of(match &job.input {
        Input::File(p) => p,
        Input::Stdin { .. } => Path::new(""),
    });
    let mut absent: Vec<String> = Vec::new();
    for a in &recorder.absent {
        let rel = input_rel(a, &model_dir);
        if !absent.contains(&rel) && !recorder.reads.iter().any(|(p, ..)| p == a) {
            absent.push(rel);
        }
    }
    let manifest = Manifest {
        manifest: crate::manifest::VERSION,
        kiln: env!("CARGO_PKG_VERSION").into(),
        model: job.model.clone(),
        options: record.clone(),
        inputs: recorder
            .reads
            .iter()
            .map(|(p, size, hash)| InputRecord {
                path: input_rel(p, &model_dir),
                size: *size,
                xxh3: hash.clone(),
            })
            .collect(),
        absent,
        outputs: row.outputs.iter().map(|(_, r)| r.clone()).collect(),
        warnings: counts,
    };
    write_atomically(manifest_path, &manifest.to_json())
        .map_err(|e| Error::Write(e).with_path(manifest_path))?;
    row.manifest = Some(manifest_path.to_path_buf());
    row.inputs = recorder
        .reads
        .iter()
        .filter(|(p, ..)| p != Path::new("-"))
        .map(|(p, ..)| p.clone())
        .collect();

    // What an earlier run wrote and this one does not is removed.
    if let Some(old) = old {
        let keep: Vec<String> = manifest.outputs.iter().map(|o| o.path.clone()).collect();
        remove_outputs(state, out_dir, &me, &manifest_name, old, &keep, row);
    }
    for (path, rec) in &row.outputs {
        state.claims.insert(
            claim_key(path),
            Claim {
                owner: me.clone(),
                hash: rec.xxh3.clone(),
                texture: rec.kind == OutputKind::Texture,
            },
        );
    }
    state.claims.insert(
        claim_key(manifest_path),
        Claim {
            owner: me.clone(),
            hash: String::new(),
            texture: false,
        },
    );
    state
        .folder(out_dir)
        .insert(manifest_name, outputs_of(&manifest));
    row.summary = Some(summary);
    Ok(())
}

/// Removes the outputs `old` lists but `keep` does not, unless another input or manifest uses
/// them or they were changed since (kept, with a warning).
fn remove_outputs(
    state: &mut CommitState,
    out_dir: &Path,
    me: &str,
    manifest_name: &str,
    old: &Manifest,
    keep: &[String],
    row: &mut Row,
) {
    for o in &old.outputs {
        // A manifest is read from a folder anyone may write to: only a plain path inside the
        // output folder is ever removed.
        if !inside(&o.path) {
            continue;
        }
        if keep.iter().any(|k| k.eq_ignore_ascii_case(&o.path))
            || state.taken(out_dir, &o.path, me, manifest_name, None)
        {
            continue;
        }
        let path = out_dir.join(&o.path);
        match fs::read(&path) {
            Ok(bytes) if content_hash(&bytes) == o.xxh3 => {
                if fs::remove_file(&path).is_ok() {
                    row.removed.push(path);
                }
            }
            Ok(_) => {
                row.warnings.push(
                    Warning::new(
                        codes::STALE_OUTPUT_KEPT,
                        "an earlier conversion wrote it and this one does not, but it was changed since: kept",
                    )
                    .at(path.display().to_string()),
                );
                *row.warning_counts
                    .entry(codes::STALE_OUTPUT_KEPT.to_string())
                    .or_default() += 1;
            }
            Err(_) => {}
        }
    }
}

/// Whether a manifest's output path names a file inside the manifest's folder: relative, with
/// no `..`, no root and no drive.
fn inside(path: &str) -> bool {
    let p = Path::new(path);
    !path.is_empty()
        && !path.contains('\\')
        && p.components().all(|c| matches!(c, Component::Normal(_)))
}

/// `NAME-HASH8.EXT`: a texture's name when another with other bytes has its plain one.
fn hashed_name(file: &str, hash: &str) -> String {
    let short = &hash[..8.min(hash.len())];
    match file.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => format!("{stem}-{short}.{ext}"),
        _ => format!("{file}-{short}"),
    }
}

/// Writes a kiln-layout `.mesh` into `f` and gives its size and content hash. Its header's
/// checksum covers everything after it, and the manifest's hash everything with it, so the
/// two hashes are two passes in that order; both run on another of rayon's threads while this
/// one writes the file with a zero checksum, which then goes in at its offset. At 400k
/// triangles (55 MB) the write no longer waits for the checksum's pass first.
fn write_kiln_mesh(
    file: &kiln_format::kiln::MeshFile,
    f: &mut fs::File,
) -> std::io::Result<(u64, u128)> {
    use std::io::{Seek, SeekFrom};
    let (sum_and_hash, written) = rayon::join(
        || {
            let sum = file.checksum();
            let mut hash = xxhash_rust::xxh3::Xxh3::new();
            file.for_each_piece(sum, |piece| hash.update(piece));
            (sum, hash.digest128())
        },
        || -> std::io::Result<()> {
            let mut w = std::io::BufWriter::with_capacity(1 << 16, &mut *f);
            file.write_with_checksum_to(0, &mut w)?;
            w.flush()
        },
    );
    written?;
    let (sum, hash) = sum_and_hash;
    f.seek(SeekFrom::Start(
        kiln_format::kiln::spec::CHECKSUM_OFFSET as u64,
    ))?;
    f.write_all(&sum.to_le_bytes())?;
    Ok((file.len() as u64, hash))
}

/// A writer that hashes and counts what passes through it.
struct HashingWriter<W> {
    inner: W,
    hash: xxhash_rust::xxh3::Xxh3,
    len: u64,
}

/// From this size a write is hashed on another of rayon's threads while it is written: the
/// classic `.mesh` passes its vertex arrays through whole (tens of MB), whose hash (~8 ms for
/// 62 MB) then no longer adds to the write.
const HASH_BESIDE: usize = 1 << 20;

impl<W: Write + Send> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() >= HASH_BESIDE {
            let (hash, inner) = (&mut self.hash, &mut self.inner);
            // On an error the hash has seen more than was written; the file is then removed.
            rayon::join(|| hash.update(buf), || inner.write_all(buf)).1?;
            self.len += buf.len() as u64;
            return Ok(buf.len());
        }
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The depfile of a batch (Make syntax): for each input converted or up to date, its outputs
/// (the `.mesh` first, the manifest last) `:` every file it read. Paths as opened; spaces, `#`
/// and `$` escaped as GCC does.
pub fn depfile(rows: &[Row]) -> String {
    let mut out = String::new();
    for r in rows {
        if matches!(r.status, Status::Failed(_)) {
            continue;
        }
        let targets: Vec<String> = r
            .outputs
            .iter()
            .map(|(p, _)| escape_make(p))
            .chain(r.manifest.iter().map(|p| escape_make(p)))
            .collect();
        if targets.is_empty() {
            continue;
        }
        out.push_str(&targets.join(" "));
        out.push(':');
        for i in &r.inputs {
            out.push_str(" \\\n  ");
            out.push_str(&escape_make(i));
        }
        out.push('\n');
    }
    out
}

fn escape_make(path: &Path) -> String {
    let s = path.to_string_lossy();
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            ' ' => out.push_str("\\ "),
            '#' => out.push_str("\\#"),
            '$' => out.push_str("$$"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file read in two halves is the file, at sizes around the split and of odd length;
    /// a missing file is the same error as `fs::read`'s.
    #[test]
    fn a_file_read_in_halves_is_the_file() {
        let t = tempfile::tempdir().unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for len in [
            0,
            17,
            SPLIT_READ as usize - 1,
            SPLIT_READ as usize,
            3 * SPLIT_READ as usize + 7,
        ] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 + i / 251) as u8).collect();
            let path = t.path().join(format!("{len}.bin"));
            fs::write(&path, &bytes).unwrap();
            let got = pool.install(|| read_whole(&path)).unwrap();
            assert!(got == bytes, "{len} bytes");
        }
        let missing = t.path().join("missing.fbx");
        let e = read_whole(&missing).unwrap_err();
        assert_eq!(e.kind(), fs::read(&missing).unwrap_err().kind());
    }

    #[test]
    fn discards_unlink_every_file_and_keep_only_running_threads() {
        let t = tempfile::tempdir().unwrap();
        let d = Discards::default();
        let files: Vec<PathBuf> = (0..40).map(|i| t.path().join(format!("{i}.old"))).collect();
        for f in &files {
            fs::write(f, b"old mesh").unwrap();
            d.unlink(f.clone());
        }
        // Once those have finished, the next unlink joins them: it alone is held.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !d.0.lock().unwrap().iter().all(|h| h.is_finished()) {
            assert!(
                std::time::Instant::now() < deadline,
                "unlinks still running"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let last = t.path().join("last.old");
        fs::write(&last, b"old mesh").unwrap();
        d.unlink(last.clone());
        assert_eq!(d.0.lock().unwrap().len(), 1);
        d.join_all();
        assert!(!last.exists());
        assert!(d.0.lock().unwrap().is_empty());
        assert!(files.iter().all(|f| !f.exists()));
    }

    #[test]
    fn policies_deny_by_code_and_prefix_and_allow_wins() {
        let p = WarningPolicy {
            deny_all: false,
            deny: vec!["obj.*".into(), "pipeline.texture-missing".into()],
            allow: vec!["obj.indented-statement".into()],
        };
        assert!(p.denies("obj.utf16-converted"));
        assert!(p.denies("pipeline.texture-missing"));
        assert!(!p.denies("obj.indented-statement"));
        assert!(!p.denies("fbx.x"));
        let strict = WarningPolicy {
            deny_all: true,
            allow: vec!["fbx.*".into()],
            ..WarningPolicy::default()
        };
        assert!(strict.denies("obj.x") && !strict.denies("fbx.y"));
    }

    #[test]
    fn paths_relative_and_hashed_names() {
        assert_eq!(
            relative(Path::new("/a/b/t/x.png"), Path::new("/a/b/out/m")),
            PathBuf::from("../../t/x.png")
        );
        assert_eq!(
            relative(Path::new("/a/out/x.png"), Path::new("/a/out")),
            PathBuf::from("x.png")
        );
        assert_eq!(normalize(Path::new("a/./b/../c")), PathBuf::from("a/c"));
        assert_eq!(slashed(Path::new("/a/b")), "/a/b");
        assert_eq!(slashed(Path::new("a/b/c.png")), "a/b/c.png");
        assert_eq!(slashed(Path::new("../t.png")), "../t.png");
        assert_eq!(
            hashed_name("tex.png", "0123456789abcdef"),
            "tex-01234567.png"
        );
        assert_eq!(hashed_name("tex", "0123456789abcdef"), "tex-01234567");
        assert!(inside("x.mesh") && inside("textures/a.png"));
        for bad in [
            "",
            "../x.mesh",
            "a/../../x",
            "/etc/passwd",
            "C:\\x",
            "a\\..\\b",
        ] {
            assert!(!inside(bad), "{bad}");
        }
        assert_eq!(glob_root(Path::new("m/**/*.fbx")), PathBuf::from("m"));
        assert_eq!(glob_root(Path::new("m/x*.fbx")), PathBuf::from("m"));
        assert_eq!(escape_make(Path::new("a b/c#$.fbx")), "a\\ b/c\\#$$.fbx");
    }

    #[test]
    fn plan_mirrors_paths_and_refuses_collisions() {
        let f = |file: &str, root: &str| Found {
            file: file.into(),
            root: root.into(),
        };
        let jobs = plan(
            vec![f("m/a/x.fbx", "m/a"), f("m/b/x.fbx", "m/b")],
            None,
            None,
        )
        .unwrap();
        assert_eq!(jobs[0].stem, PathBuf::from("a/x"));
        assert_eq!(jobs[1].stem, PathBuf::from("b/x"));
        assert_eq!(jobs[1].model, "b/x.fbx");
        let one = plan(vec![f("m/a/x.fbx", "m/a")], None, None).unwrap();
        assert_eq!(one[0].stem, PathBuf::from("x"));
        let err = plan(vec![f("m/x.fbx", "m"), f("m/X.obj", "m")], None, None).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("m/x.fbx and m/X.obj would both write X.mesh"),
            "{err}"
        );
        let err = plan(vec![f("m/x.fbx", "m")], None, Some(Path::new("elsewhere"))).unwrap_err();
        assert!(matches!(err, PlanError::NotUnderBase { .. }), "{err}");
    }
}
