// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// check-report's demangle tier: Rust functions whose symbols rustc mangles,
// legacy (_ZN...17h<hash>E) or v0 (_R...): a module's function, a generic
// function's instance, a trait method, and the standard library's BTreeMap.
use std::collections::BTreeMap;

// std::hint::black_box is unstable in Debian 12's rustc 1.63: a volatile read
// keeps the optimizer from folding the loops away.
fn black_box<T: Copy>(x: T) -> T {
    unsafe { std::ptr::read_volatile(&x) }
}

trait Shape {
    fn area(&self) -> f64;
}

struct Square(f64);

impl Shape for Square {
    #[inline(never)]
    fn area(&self) -> f64 {
        let mut a = 0.0;
        for i in 0..300_000 {
            a += black_box(self.0) * (i as f64);
        }
        a
    }
}

#[inline(never)]
fn sum_generic<T: Copy + Into<f64>>(v: &[T]) -> f64 {
    let mut s = 0.0;
    for x in v {
        s += black_box(*x).into();
    }
    s
}

mod spin {
    #[inline(never)]
    pub fn inner(m: &mut std::collections::BTreeMap<u64, u64>, n: u64) -> u64 {
        let mut t = 0;
        for i in 0..n {
            *m.entry(i % 1000).or_insert(0) += i;
            t += m.len() as u64;
        }
        t
    }
}

// Spins for the seconds given (default 1).
fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let start = std::time::Instant::now();
    let mut m = BTreeMap::new();
    let v: Vec<u32> = (0..200_000).collect();
    let sq = Square(1.5);
    let mut acc = 0.0;
    while start.elapsed().as_secs_f64() < secs {
        acc += spin::inner(&mut m, 20000) as f64;
        acc += sum_generic(&v);
        acc += sq.area();
    }
    println!("{}", acc > 0.0);
}
