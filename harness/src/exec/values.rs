//! The value of an expression of a case (`$var`, a number, an MPI constant, and sums
//! of them): integers stay exact, a float term makes the sum a float, and a list term
//! makes it a list, element by element.

use super::Exec;
use crate::judge::value::Val;
use mpit_spec::cases::expr::{Expr, Term};

impl Exec<'_, '_> {
    pub(super) fn value(&self, e: &Expr) -> Result<Val, String> {
        match e {
            Expr::Sum(terms) if terms.len() == 1 && terms[0].0 == 1 => self.term(&terms[0].1),
            // Integers stay exact; a float term (a double pvar's value, an MPI_Wtime
            // time) makes the sum a float. A read of several elements makes it a list,
            // element by element (the other terms added to each); one element counts
            // as that element.
            Expr::Sum(terms) => {
                let vals: Vec<(i64, Val)> = terms
                    .iter()
                    .map(|(k, t)| self.term(t).map(|v| (*k, v)))
                    .collect::<Result<_, _>>()?;
                let width = vals
                    .iter()
                    .filter_map(|(_, v)| match v {
                        Val::List(l) if l.len() > 1 => Some(l.len()),
                        _ => None,
                    })
                    .max();
                match width {
                    None => sum(&vals, 0),
                    Some(n) => (0..n)
                        .map(|i| sum(&vals, i))
                        .collect::<Result<_, _>>()
                        .map(Val::List),
                }
            }
            Expr::Null => Ok(Val::Int(0)),
            Expr::Text(t) => Err(format!("`{t}` is not a value")),
            Expr::Shape(_) => Err("a buffer shape is not a value".into()),
        }
    }

    fn term(&self, t: &Term) -> Result<Val, String> {
        match t {
            Term::Int(i) => Ok(Val::Int(*i as i128)),
            Term::Var(v) => self
                .vars
                .get(v)
                .cloned()
                .ok_or_else(|| format!("`${v}` is not set")),
            Term::Const(c) => self.constant(c).map(|n| Val::Int(n as i128)),
        }
    }

    pub(super) fn int(&self, e: &Expr) -> Result<i64, String> {
        let v = self.value(e)?;
        v.int()
            .map(|i| i as i64)
            .ok_or_else(|| format!("{v} is not an integer"))
    }
}

/// One element of a sum: element `i` of each list term (a one-element list is that
/// element for every `i`), each times its coefficient.
fn sum(vals: &[(i64, Val)], i: usize) -> Result<Val, String> {
    let mut total: i128 = 0;
    let mut float: Option<f64> = None;
    for (k, v) in vals {
        let v = match v {
            Val::List(l) if l.len() == 1 => &l[0],
            Val::List(l) => l
                .get(i)
                .ok_or_else(|| format!("{v} has no element {i} to add"))?,
            v => v,
        };
        match (v, float.as_mut()) {
            (Val::Int(n), None) => total += *k as i128 * n,
            (Val::Int(_) | Val::Float(_), _) => {
                let x = v.num().unwrap_or_default();
                *float.get_or_insert(total as f64) += *k as f64 * x;
            }
            _ => return Err(format!("{v} is not a number")),
        }
    }
    Ok(float.map_or(Val::Int(total), Val::Float))
}
