//! The module import graph of a Rust crate's source tree, read from the text of its files, and
//! the import cycles in it.
//!
//! Crate-agnostic and dependency-free, so any crate of the workspace can include it with
//! `#[path = "…/import_graph.rs"] mod import_graph;` and check its own `src/`.
//!
//! Every `.rs` file under the source root is a module: `lib.rs` and `main.rs` are `crate`,
//! `a/mod.rs` and `a.rs` are `crate::a`, `a/b.rs` is `crate::a::b`. A file depends on the modules
//! its paths name: `crate::…`, `super::…` and `self::…` paths anywhere in its code (`use` trees
//! with their braces included), and paths starting with one of its own child modules (`files::x`
//! in a `mod.rs`). A path counts for the deepest module file it names (`crate::a::b::Item` is a
//! dependency on `crate::a::b` when that file exists, on `crate::a` otherwise), so a use of a
//! re-export depends on the module that re-exports it. Comments and string literals are
//! skipped; `super` inside an inline `mod tests { … }` means the file's own module. Test code
//! counts like any other: a test that reaches back up the graph is a cycle too.
//!
//! Two things are not dependencies, as Rust's modules are written: a re-export (`pub use`,
//! `pub(crate) use`: a module that offers an item does not need it; whoever imports through it
//! depends on the re-exporting module, as above), and a path to one of the module's own
//! ancestors (a child of `world` that implements `World` is part of `world`, the way a file of
//! a type's methods is part of the type). What is left is a dependency between two subtrees
//! that do not contain each other, and a cycle of those is a real knot in the layering.
//!
//! It reads text, not the compiler's view: macros that build paths and `#[path]` attributes
//! are not followed. That is good enough for a crate written in the ordinary way.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (`crate::a::b`) to the modules it depends on, for every module file under
/// `src_root`. Self-dependencies are left out.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// The import cycles among the modules under `src_root`: each strongly connected component of
/// more than one module, its modules sorted, the components sorted. Empty when the graph is
/// acyclic.
pub fn cycles(src_root: &Path) -> Vec<Vec<String>> {
    strongly_connected(&graph(src_root)).into_iter().filter(|c| c.len() > 1).collect()
}

/// Each import cycle under `src_root` as a line a failing test can print: its modules and one
/// loop through them. Empty when there is none.
pub fn cycle_report(src_root: &Path) -> Vec<String> {
    let graph = graph(src_root);
    cycles(src_root)
        .iter()
        .map(|c| {
            format!(
                "{} modules: {}\n  for example {}",
                c.len(),
                c.join(", "),
                witness(&graph, c).join(" -> ")
            )
        })
        .collect()
}

/// One shortest cycle through the modules of `component` (a result of [`cycles`]), as a path
/// that starts and ends at the same module: a readable witness for a failure message.
pub fn witness(graph: &Graph, component: &[String]) -> Vec<String> {
    let inside: BTreeSet<&String> = component.iter().collect();
    let mut best: Option<Vec<String>> = None;
    for start in component {
        // Breadth-first from `start` inside the component, back to `start`.
        let mut previous: BTreeMap<&String, &String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut closing = None;
        while let Some(at) = queue.pop_front() {
            for next in graph.get(at).into_iter().flatten().filter(|n| inside.contains(n)) {
                if next == start {
                    closing = Some(at);
                    break;
                }
                if !previous.contains_key(next) {
                    previous.insert(next, at);
                    queue.push_back(next);
                }
            }
            if closing.is_some() {
                break;
            }
        }
        let Some(mut at) = closing else { continue };
        let mut path = vec![start.clone(), at.clone()];
        while at != start {
            at = previous[at];
            path.push(at.clone());
        }
        path.reverse();
        if best.as_ref().is_none_or(|b| path.len() < b.len()) {
            best = Some(path);
        }
    }
    best.unwrap_or_default()
}

/// The module files under `src_root`: module path to file.
pub fn modules(src_root: &Path) -> BTreeMap<String, PathBuf> {
    let mut files = Vec::new();
    collect_rs_files(src_root, &mut files);
    files
        .into_iter()
        .filter_map(|file| {
            let relative = file.strip_prefix(src_root).ok()?.to_path_buf();
            Some((module_path(&relative)?, file))
        })
        .collect()
}

/// The dependency graph of the modules under `src_root` (see the module docs for what counts).
pub fn graph(src_root: &Path) -> Graph {
    let modules = modules(src_root);
    let known: BTreeSet<Vec<String>> = modules.keys().map(|m| split(m)).collect();
    let mut graph = Graph::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let here = split(module);
        let mut targets = BTreeSet::new();
        for path in referenced_paths(&strip_reexports(&strip_comments_and_strings(&text)), &here, &known) {
            if let Some(target) = deepest_module(&path, &known)
                && target != here
                // A module may use its ancestors (see the module docs).
                && !here.starts_with(&target)
            {
                targets.insert(target.join("::"));
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

/// The strongly connected components of `graph` (Tarjan's algorithm), each sorted, sorted.
pub fn strongly_connected(graph: &Graph) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                component.sort();
                self.out.push(component);
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.out.sort();
    walk.out
}

fn collect_rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("a directory entry").path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            collect_rs_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `a/b.rs` → `crate::a::b`, `a/mod.rs` → `crate::a`, `lib.rs` → `crate`. Files under `bin/`
/// are crates of their own and are left out.
fn module_path(relative: &Path) -> Option<String> {
    let mut parts: Vec<String> =
        relative.iter().map(|p| p.to_string_lossy().into_owned()).collect::<Vec<_>>();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    let file = parts.pop()?;
    let stem = file.strip_suffix(".rs")?;
    let is_root = parts.is_empty() && (stem == "lib" || stem == "main");
    if !is_root && stem != "mod" {
        parts.push(stem.to_string());
    }
    Some(std::iter::once("crate".to_string()).chain(parts).collect::<Vec<_>>().join("::"))
}

fn split(module: &str) -> Vec<String> {
    module.split("::").map(str::to_string).collect()
}

/// The longest prefix of `path` that is a module file.
fn deepest_module(path: &[String], known: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    (1..=path.len()).rev().map(|n| path[..n].to_vec()).find(|prefix| known.contains(prefix))
}

/// `text` with comments and the insides of string and character literals blanked out (to
/// spaces, keeping the line structure), so that only code is left to scan.
fn strip_comments_and_strings(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let prev_ident = i > 0 && ident(chars[i - 1]);
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            // Block comments nest in Rust.
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if (c == 'r' || (c == 'b' && next == Some('r')))
            && !prev_ident
            && raw_string_hashes(&chars, i + if c == 'b' { 2 } else { 1 }).is_some()
        {
            let start = i + if c == 'b' { 2 } else { 1 };
            let hashes = raw_string_hashes(&chars, start).unwrap_or(0);
            i = start + hashes + 1;
            let closing: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            while i < chars.len() && !chars[i..].starts_with(&closing) {
                blank(&mut out, chars[i]);
                i += 1;
            }
            i += closing.len();
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if let Some(&c) = chars.get(i) {
                    blank(&mut out, c);
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1F600}'), or else a lifetime ('a), kept.
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// At `at` (just after `r`), the number of `#` before the opening quote of a raw string, if a
/// raw string starts there.
fn raw_string_hashes(chars: &[char], at: usize) -> Option<usize> {
    let hashes = chars[at.min(chars.len())..].iter().take_while(|&&c| c == '#').count();
    (chars.get(at + hashes) == Some(&'"')).then_some(hashes)
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Semi,
    Other,
}

fn tokens(code: &str) -> Vec<Token> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token::Ident(chars[start..i].iter().collect()));
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        out.push(match c {
            ':' if chars.get(i + 1) == Some(&':') => {
                i += 1;
                Token::PathSep
            }
            '{' => Token::Open,
            '}' => Token::Close,
            ',' => Token::Comma,
            ';' => Token::Semi,
            _ => Token::Other,
        });
        i += 1;
    }
    out
}

/// Every module-relative path in `code` (comments and strings already blanked), made absolute
/// (`crate::…`), for the file of module `here`.
fn referenced_paths(code: &str, here: &[String], known: &BTreeSet<Vec<String>>) -> Vec<Vec<String>> {
    let tokens = tokens(code);
    let mut out = Vec::new();
    // Inline modules (`mod tests { … }`) open at a brace depth: their names extend `here`.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Open => depth += 1,
            Token::Close => {
                depth = depth.saturating_sub(1);
                while inline.last().is_some_and(|(_, d)| *d > depth) {
                    inline.pop();
                }
            }
            Token::Ident(word) if word == "mod" => {
                if let (Some(Token::Ident(name)), Some(Token::Open)) = (tokens.get(i + 1), tokens.get(i + 2))
                {
                    inline.push((name.clone(), depth + 1));
                    depth += 1;
                    i += 3;
                    continue;
                }
            }
            Token::Ident(word) => {
                let after_sep = i > 0 && tokens[i - 1] == Token::PathSep;
                let starts_path = tokens.get(i + 1) == Some(&Token::PathSep) && !after_sep;
                let scope: Vec<String> =
                    here.iter().cloned().chain(inline.iter().map(|(n, _)| n.clone())).collect();
                let mut child = here.to_vec();
                child.push(word.clone());
                // Only a path from the file's own scope can name a child module file.
                let relative = inline.is_empty() && known.contains(&child);
                if starts_path && (word == "crate" || word == "super" || word == "self" || relative) {
                    let mut trees = Vec::new();
                    let end = use_tree(&tokens, i, &mut Vec::new(), &mut trees);
                    for tree in trees {
                        if let Some(path) = absolute(&tree, &scope) {
                            out.push(path);
                        }
                    }
                    i = end;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Reads the path (or `use` tree with braces) starting at token `i` under `prefix`, pushing
/// each full path to `out`. Returns the index of the first token after it.
fn use_tree(tokens: &[Token], mut i: usize, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let depth = prefix.len();
    loop {
        match tokens.get(i) {
            Some(Token::Ident(word)) if word != "as" => {
                prefix.push(word.clone());
                i += 1;
                if tokens.get(i) == Some(&Token::PathSep) {
                    i += 1;
                    continue;
                }
                break;
            }
            Some(Token::Open) => {
                // A group: `{a, b::c, self}`.
                i += 1;
                loop {
                    match tokens.get(i) {
                        Some(Token::Close) => {
                            i += 1;
                            break;
                        }
                        Some(Token::Comma) => i += 1,
                        None => break,
                        Some(Token::Ident(_)) => i = use_tree(tokens, i, prefix, out),
                        // `*` and anything else a group can hold.
                        Some(_) => i += 1,
                    }
                    // `as name` renames do not change what is imported.
                    if let Some(Token::Ident(word)) = tokens.get(i)
                        && word == "as"
                    {
                        i += 2;
                    }
                }
                prefix.truncate(depth);
                return i;
            }
            _ => break,
        }
    }
    // `a::b::self` in a group is `a::b`.
    if prefix.last().is_some_and(|w| w == "self") && prefix.len() > 1 {
        prefix.pop();
    }
    out.push(prefix.clone());
    prefix.truncate(depth);
    i
}

/// `path` as written in module `scope`, made absolute: `crate::…` as is, `super::`/`self::`
/// relative to `scope`, and anything else relative to `scope` too (a child module).
fn absolute(path: &[String], scope: &[String]) -> Option<Vec<String>> {
    let mut segments = path.iter().peekable();
    let mut base: Vec<String> = match segments.peek().map(|s| s.as_str()) {
        Some("crate") => {
            segments.next();
            vec!["crate".to_string()]
        }
        _ => scope.to_vec(),
    };
    while let Some(word) = segments.peek().map(|s| s.as_str()) {
        match word {
            "self" => {}
            "super" => {
                base.pop();
                if base.is_empty() {
                    return None;
                }
            }
            _ => break,
        }
        segments.next();
    }
    base.extend(segments.cloned());
    Some(base)
}

/// `code` without its re-export declarations (`pub use …;`, `pub(crate) use …;`, …): a module
/// that re-exports an item offers it, it does not depend on it (see the module docs).
pub fn strip_reexports(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("pub") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let boundary = before.chars().next_back().is_none_or(|c| !c.is_alphanumeric() && c != '_');
        let mut after = &from[3..];
        if after.starts_with('(') {
            after = after.find(')').map_or(after, |close| &after[close + 1..]);
        }
        let after_ws = after.trim_start();
        if boundary && after_ws.starts_with("use") && after_ws[3..].starts_with(|c: char| c.is_whitespace()) {
            let end = after_ws.find(';').map_or(after_ws.len(), |e| e + 1);
            rest = &after_ws[end..];
        } else {
            out.push_str("pub");
            rest = &from[3..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A made-up source tree in a fresh temporary directory: (relative path, text) pairs.
    struct Tree(PathBuf);

    impl Tree {
        fn new(files: &[(&str, &str)]) -> Tree {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let root = std::env::temp_dir().join(format!("import-graph-{}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            for (path, text) in files {
                let file = root.join(path);
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(file, text).unwrap();
            }
            Tree(root)
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn edges(graph: &Graph, from: &str) -> Vec<String> {
        graph[from].iter().cloned().collect()
    }

    #[test]
    fn modules_are_named_for_their_files() {
        let tree = Tree::new(&[
            ("lib.rs", "pub mod a; pub mod b;"),
            ("a/mod.rs", "pub mod inner;"),
            ("a/inner.rs", ""),
            ("b.rs", ""),
            ("bin/tool.rs", ""),
        ]);
        let names: Vec<String> = modules(&tree.0).into_keys().collect();
        assert_eq!(names, ["crate", "crate::a", "crate::a::inner", "crate::b"]);
    }

    #[test]
    fn an_acyclic_tree_has_no_cycles_and_the_edges_it_names() {
        let tree = Tree::new(&[
            ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
            // A use tree with nested braces, `self` and a rename; a child module by bare name.
            ("a/mod.rs", "pub mod x;\nuse super::{b::{self, Thing as T}, c};\nfn f() { x::go(); }\n"),
            ("a/x.rs", "pub fn go() { crate::c::Item::new(); }\n"),
            // An item path names its module: the deepest module file it reaches.
            ("b.rs", "pub struct Thing; fn g(_: crate::c::deeper::Item) {}\n"),
            // `super` in an inline test module is the file's own module, not its parent.
            ("c.rs", "pub struct Item;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n"),
        ]);
        let graph = graph(&tree.0);
        assert_eq!(edges(&graph, "crate::a"), ["crate::a::x", "crate::b", "crate::c"]);
        assert_eq!(edges(&graph, "crate::a::x"), ["crate::c"]);
        assert_eq!(edges(&graph, "crate::b"), ["crate::c"]);
        assert!(edges(&graph, "crate::c").is_empty(), "{:?}", graph["crate::c"]);
        assert!(cycles(&tree.0).is_empty());
    }

    #[test]
    fn comments_and_strings_name_nothing() {
        let tree = Tree::new(&[
            ("lib.rs", "pub mod a;\npub mod b;\n"),
            (
                "a.rs",
                "// use crate::b;\n/* crate::b::X /* nested */ crate::b */\n/// [`crate::b`]\n\
                 const S: &str = \"crate::b::X\"; const R: &str = r#\"super::b\"#; const C: char = '\"';\n\
                 fn f<'a>(x: &'a str) -> &'a str { x }\n",
            ),
            ("b.rs", "use crate::a;\n"),
        ]);
        assert!(edges(&graph(&tree.0), "crate::a").is_empty());
        assert!(cycles(&tree.0).is_empty());
    }

    #[test]
    fn a_cycle_through_a_chain_is_one_component_with_a_witness() {
        let tree = Tree::new(&[
            ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\npub mod d;\n"),
            ("a.rs", "use crate::b::B;\n"),
            ("b.rs", "pub struct B; fn f() { super::c::run(); }\n"),
            ("c.rs", "pub fn run() { let _ = crate::a::A; }\n"),
            ("d.rs", "use crate::a;\n"),
        ]);
        let found = cycles(&tree.0);
        assert_eq!(found, [vec!["crate::a".to_string(), "crate::b".into(), "crate::c".into()]]);
        let path = witness(&graph(&tree.0), &found[0]);
        assert_eq!(path.len(), 4, "{path:?}");
        assert_eq!(path.first(), path.last());
    }

    #[test]
    fn a_child_using_its_parent_and_a_parent_re_exporting_are_no_dependencies() {
        // The parent offers the child's type and the child uses the parent's function: the
        // way a type's methods spread over the files of its module. No cycle.
        let tree = Tree::new(&[
            ("lib.rs", "pub mod ed;\n"),
            (
                "ed/mod.rs",
                "pub mod state;\npub use state::State;\npub(crate) use state::{\n    Other,\n};\npub fn help() {}\n",
            ),
            (
                "ed/state.rs",
                "pub struct State; pub struct Other; fn f() { super::help(); crate::ed::help(); }\n",
            ),
        ]);
        let graph = graph(&tree.0);
        assert!(edges(&graph, "crate::ed").is_empty(), "{:?}", graph["crate::ed"]);
        assert!(edges(&graph, "crate::ed::state").is_empty(), "{:?}", graph["crate::ed::state"]);
        assert!(cycles(&tree.0).is_empty());
    }

    #[test]
    fn importing_through_a_re_export_depends_on_the_module_that_offers_it() {
        // `low` takes `State` from `ed`'s re-export, and `ed` (its code, not a re-export)
        // uses `low`: a knot between two subtrees.
        let tree = Tree::new(&[
            ("lib.rs", "pub mod ed;\npub mod low;\n"),
            ("ed/mod.rs", "pub mod state;\npub use state::State;\nfn f() { crate::low::go(); }\n"),
            ("ed/state.rs", "pub struct State;\n"),
            ("low.rs", "use crate::ed::State;\npub fn go() {}\n"),
        ]);
        assert_eq!(cycles(&tree.0), [vec!["crate::ed".to_string(), "crate::low".into()]]);
    }

    #[test]
    fn a_re_export_is_cut_out_whole_and_nothing_else() {
        let code = "pub use a::b;\npub(crate) use c::{d, e};\npub(super) use f;\npub fn g() { h::i(); }\nreuse::x; pubuse::y;\n";
        assert_eq!(strip_reexports(code), "\n\n\npub fn g() { h::i(); }\nreuse::x; pubuse::y;\n");
    }
}
