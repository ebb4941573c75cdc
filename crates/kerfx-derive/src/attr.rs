//! Parsing `#[kerf(name = value, ...)]` into spanned literal values. Nothing here knows
//! any op: what the names mean and what types they need is for `check`, from the spec.

use crate::ctxt::Ctxt;
use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::{Expr, Lit, MetaNameValue, Token, UnOp};

/// A literal as written: the only values the attributes take.
#[derive(Clone, Debug)]
pub enum Value {
    Int(i128),
    Float(f64),
    Str(String),
    Bool(bool),
    List(Vec<Spanned>),
}

impl Value {
    /// What kind of value this is, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Bool(_) => "a boolean",
            Value::List(l) if l.is_empty() => "an empty list",
            Value::List(l) if l.iter().all(|x| matches!(x.value, Value::Int(_))) => "a list of integers",
            Value::List(l) if l.iter().all(|x| matches!(x.value, Value::Int(_) | Value::Float(_))) => {
                "a list of numbers"
            }
            Value::List(_) => "a list",
        }
    }
}

/// A value with the tokens it was written as (for spans).
#[derive(Clone, Debug)]
pub struct Spanned {
    pub value: Value,
    pub tokens: TokenStream,
}

/// One `name = value` of a `#[kerf(...)]` attribute.
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: syn::Ident,
    pub value: Spanned,
    /// The whole `name = value`.
    pub tokens: TokenStream,
}

impl Entry {
    pub fn name(&self) -> String {
        self.name.to_string()
    }
}

/// An error at the first group nested deeper than [`MAX_NESTING`] in a `#[kerf(...)]`
/// attribute, checked before anything parses the attribute (and reported alone: the
/// attribute is not parsed at all, so every other message would be a consequence).
pub fn check_nesting(attrs: &[syn::Attribute]) -> Result<(), Vec<syn::Error>> {
    for attr in attrs.iter().filter(|a| a.path().is_ident("kerf")) {
        if let syn::Meta::List(list) = &attr.meta
            && let Some(span) = too_deep(list.tokens.clone())
        {
            let message = format!(
                "groups nest more than {MAX_NESTING} deep here: a `#[kerf(...)]` value is a literal or a flat list \
                 like [0, -1]"
            );
            return Err(vec![syn::Error::new(span, message)]);
        }
    }
    Ok(())
}

/// Every `name = value` of every `#[kerf(...)]` attribute, in order. Syntax errors are
/// recorded in `cx`; entries that parsed are returned all the same.
pub fn parse(attrs: &[syn::Attribute], cx: &Ctxt) -> Vec<Entry> {
    let mut entries = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("kerf")) {
        if !matches!(attr.meta, syn::Meta::List(_)) {
            cx.error_spanned_by(attr, "expected `#[kerf(op = \"...\", ...)]`");
            continue;
        }
        let pairs = match attr.parse_args_with(Punctuated::<MetaNameValue, Token![,]>::parse_terminated) {
            Ok(p) => p,
            Err(e) => {
                cx.syn_error(e);
                continue;
            }
        };
        for pair in pairs {
            let Some(name) = pair.path.get_ident().cloned() else {
                cx.error_spanned_by(&pair.path, "expected an attribute name, not a path");
                continue;
            };
            match literal(&pair.value) {
                Ok(value) => entries.push(Entry {
                    name,
                    value: Spanned { value, tokens: pair.value.to_token_stream() },
                    tokens: pair.to_token_stream(),
                }),
                Err(e) => cx.syn_error(e),
            }
        }
    }
    entries
}

/// How deep brackets and parentheses may nest in a `#[kerf(...)]` attribute. Its values
/// are literals and lists (nested for an index tensor's dims), so a few levels are plenty; syn parses expressions
/// recursively, and a thousand nested parentheses overflowed the compiler's stack.
pub const MAX_NESTING: usize = 16;

/// The opening of the first group nested deeper than [`MAX_NESTING`] in `tokens`, if
/// any, found without recursion (a stack of iterators, one per open group).
fn too_deep(tokens: TokenStream) -> Option<proc_macro2::Span> {
    let mut open = vec![tokens.into_iter()];
    while let Some(inner) = open.last_mut() {
        match inner.next() {
            Some(TokenTree::Group(g)) if open.len() >= MAX_NESTING => return Some(g.span_open()),
            Some(TokenTree::Group(g)) => open.push(g.stream().into_iter()),
            Some(_) => {}
            None => {
                open.pop();
            }
        }
    }
    None
}

fn literal(expr: &Expr) -> syn::Result<Value> {
    let not_literal = || {
        syn::Error::new_spanned(
            expr,
            "expected a literal: a string, a number, a boolean, or a list of numbers like [0, -1]",
        )
    };
    Ok(match expr {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => Value::Int(i.base10_parse()?),
            Lit::Float(f) => Value::Float(f.base10_parse()?),
            Lit::Str(s) => Value::Str(s.value()),
            Lit::Bool(b) => Value::Bool(b.value),
            _ => return Err(not_literal()),
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match literal(&u.expr)? {
            Value::Int(i) => Value::Int(-i),
            Value::Float(f) => Value::Float(-f),
            _ => return Err(not_literal()),
        },
        Expr::Group(g) => literal(&g.expr)?,
        Expr::Paren(p) => literal(&p.expr)?,
        Expr::Array(a) => {
            let mut items = Vec::with_capacity(a.elems.len());
            for e in &a.elems {
                // Lists nest for tensors of any rank (Gather's indices); `too_deep` bounds it.
                let v = literal(e)?;
                items.push(Spanned { value: v, tokens: e.to_token_stream() });
            }
            Value::List(items)
        }
        _ => return Err(not_literal()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kerf_attr(value: &str) -> syn::Attribute {
        let tokens: TokenStream = format!("#[kerf(start = {value})]").parse().unwrap();
        let mut attrs = syn::parse::Parser::parse2(syn::Attribute::parse_outer, tokens).unwrap();
        attrs.remove(0)
    }

    /// A thousand nested parentheses (they overflowed rustc's stack in syn's parser) are
    /// refused before anything parses them; values nested within the limit pass.
    #[test]
    fn nesting_deeper_than_the_limit_is_an_error() {
        let deep = format!("[{}1{}]", "(".repeat(1000), ")".repeat(1000));
        let err = check_nesting(&[kerf_attr(&deep)]).unwrap_err();
        assert!(err[0].to_string().contains("nest more than 16 deep"), "{}", err[0]);
        let within = format!("[{}1{}]", "(".repeat(MAX_NESTING - 2), ")".repeat(MAX_NESTING - 2));
        assert!(check_nesting(&[kerf_attr(&within)]).is_ok());
        let just_over = format!("[{}1{}]", "(".repeat(MAX_NESTING - 1), ")".repeat(MAX_NESTING - 1));
        assert!(check_nesting(&[kerf_attr(&just_over)]).is_err());
    }
}
