//! `kerf ops` and `kerf spec ID`: printed from the spec files, so a new op needs no
//! change here.

use crate::{CliError, outln};
use kerfx::spec::{InputRank, OpSpec, RuleKind};
use std::io::Write;

fn registry() -> Result<&'static kerfx::spec::Registry, CliError> {
    kerfx::spec::registry().map_err(|e| CliError::new(e.to_string()))
}

fn versions(spec: &OpSpec) -> String {
    spec.versions.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

pub fn ops(out: &mut dyn Write) -> Result<(), CliError> {
    let reg = registry()?;
    let width = reg.ids().map(str::len).max().unwrap_or(0);
    let vwidth = reg.ops().iter().map(|s| versions(s).len() + "versions ".len()).max().unwrap_or(0);
    for spec in reg.ops() {
        let v = format!("versions {}", versions(spec));
        outln!(out, "{:<width$}  {v:<vwidth$}  {}", spec.id, spec.summary);
    }
    Ok(())
}

pub fn spec(id: &str, out: &mut dyn Write) -> Result<(), CliError> {
    let reg = registry()?;
    let spec = reg.get(id).ok_or_else(|| {
        CliError::new(format!("unknown op `{id}` (known: {})", reg.ids().collect::<Vec<_>>().join(", ")))
    })?;
    out.write_all(render(spec).as_bytes()).map_err(crate::stdout_error)
}

fn opt_versions(v: &Option<Vec<u32>>) -> String {
    match v {
        Some(v) => format!(" [versions {}]", v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")),
        None => String::new(),
    }
}

/// The whole spec as text.
pub fn render(spec: &OpSpec) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "{} ({}), versions {}", spec.id, spec.vendor, versions(spec));
    let _ = writeln!(s, "{}", spec.summary);

    let _ = writeln!(s, "\nattributes:");
    if spec.attributes.is_empty() {
        let _ = writeln!(s, "  (none)");
    }
    let aw = spec.attributes.iter().map(|a| a.name.len()).max().unwrap_or(0);
    for a in &spec.attributes {
        let mut how = a.ty.name().to_string();
        if a.required {
            how.push_str(", required");
        } else if let Some(d) = &a.default {
            let _ = write!(how, ", default {d}");
        } else {
            how.push_str(", optional");
        }
        if let Some(allowed) = &a.allowed {
            let _ = write!(how, ", one of {}", allowed.join(" | "));
        }
        how.push_str(&opt_versions(&a.versions));
        let _ = writeln!(s, "  {:<aw$}  {how}", a.name);
        let _ = writeln!(s, "  {:<aw$}    {}", "", a.doc);
    }

    let _ = writeln!(s, "\ninputs:");
    if spec.inputs.is_empty() {
        let _ = writeln!(s, "  (none)");
    }
    let iw = spec.inputs.iter().map(|i| i.name.len()).max().unwrap_or(0);
    let mut inputs: Vec<_> = spec.inputs.iter().collect();
    inputs.sort_by_key(|i| i.index);
    for i in inputs {
        let rank = match i.rank {
            InputRank::Any => "any rank",
            InputRank::Scalar => "scalar",
            InputRank::Vector => "1-D",
            InputRank::ScalarOrVector => "scalar or 1-D",
        };
        let mut how = format!("{}, {rank}", i.types);
        if i.optional {
            how.push_str(", optional");
        }
        if let Some(r) = &i.replaces {
            let _ = write!(how, ", replaces attribute `{r}`");
        }
        how.push_str(&opt_versions(&i.versions));
        let _ = writeln!(s, "  {} {:<iw$}  {how}", i.index, i.name);
        let _ = writeln!(s, "    {:<iw$}  {}", "", i.doc);
    }

    if !spec.type_sets.is_empty() {
        let _ = writeln!(s, "\ntype sets:");
        for (name, set) in &spec.type_sets {
            let _ = writeln!(s, "  {name} = {}", set.join(", "));
        }
    }

    if !spec.rules.is_empty() {
        let _ = writeln!(s, "\nrules:");
        for r in &spec.rules {
            let kind = match r.kind {
                RuleKind::Dtype => "dtype",
                RuleKind::Frontend => "frontend",
            };
            let mut detail = String::new();
            if let Some(subj) = &r.subject {
                let _ = write!(detail, " {subj}");
            }
            if let Some(c) = &r.when {
                let _ = write!(detail, " when {} in [{}]", c.attribute, c.values.join(", "));
            }
            if let Some(a) = &r.allow {
                let _ = write!(detail, " allows {}", a.join(", "));
            }
            if let Some(f) = &r.forbid {
                let _ = write!(detail, " forbids {}", f.join(", "));
            }
            detail.push_str(&opt_versions(&r.versions));
            let _ = writeln!(s, "  {} ({kind}){detail}", r.id);
            let _ = writeln!(s, "      {}", r.doc);
        }
    }

    if !spec.examples.is_empty() {
        let _ = writeln!(s, "\nexamples (run them with `kerf demo --op {}`):", spec.id);
        for e in &spec.examples {
            let outcome = match (&e.expected, &e.error) {
                (Some(t), _) => format!("→ {}{:?}", t.dtype, t.shape),
                (None, Some(err)) => format!("→ error `{err}`"),
                _ => String::new(),
            };
            let _ = writeln!(s, "  {} {outcome}: {}", e.name, e.doc);
        }
    }
    s
}
