//! Typed physical quantities (SI internally) and a parser for unit strings.
//!
//! Every quantity is an `f64` newtype holding the SI value (metres, square metres, farads,
//! ohms, volts, amperes, joules, watts, seconds, kelvin). Constructors and accessors exist for
//! the prefixes used in circuit work (`Energy::from_pj`, `.pj()`, `Time::from_ns`, ...).
//! Quantities serialise as strings with units (`"4.68 pJ"`) and deserialise from any string
//! the [`parse_quantity`] parser accepts for that dimension (or a bare number, read as SI).
//!
//! The parser accepts `"<number> <unit>"` where unit is a product/quotient of symbols with SI
//! prefixes, e.g. `"0.96 V"`, `"1.2 fF/um"`, `"146 F^2"`, `"4.5e-9 A/um"`, `"360 K"`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

/// Error parsing a unit string. Always names the offending text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UnitError {
    /// The numeric part could not be read.
    #[error("cannot read a number in {text:?}")]
    BadNumber {
        /// The full text given.
        text: String,
    },
    /// A unit symbol is unknown.
    #[error("unknown unit {unit:?} in {text:?}")]
    UnknownUnit {
        /// The unknown symbol.
        unit: String,
        /// The full text given.
        text: String,
    },
    /// The unit has the wrong dimension for the quantity asked for.
    #[error("{text:?} has dimension {found}, expected {expected}")]
    WrongDimension {
        /// The full text given.
        text: String,
        /// Dimension found.
        found: String,
        /// Dimension expected.
        expected: String,
    },
    /// The value is not finite.
    #[error("{text:?} is not a finite value")]
    NotFinite {
        /// The full text given.
        text: String,
    },
}

/// Physical dimension as integer exponents of (m, kg, s, A, K) plus a "feature size" (F)
/// exponent for cell areas given in F² (resolved by the caller who knows the node).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Dim {
    /// metre exponent
    pub m: i8,
    /// kilogram exponent
    pub kg: i8,
    /// second exponent
    pub s: i8,
    /// ampere exponent
    pub a: i8,
    /// kelvin exponent
    pub k: i8,
    /// feature-size exponent (F, F^2)
    pub f: i8,
}

impl Dim {
    const fn new(m: i8, kg: i8, s: i8, a: i8, k: i8, f: i8) -> Dim {
        Dim { m, kg, s, a, k, f }
    }
    /// Dimensionless.
    pub const NONE: Dim = Dim::new(0, 0, 0, 0, 0, 0);
    /// Length (m).
    pub const LENGTH: Dim = Dim::new(1, 0, 0, 0, 0, 0);
    /// Area (m²).
    pub const AREA: Dim = Dim::new(2, 0, 0, 0, 0, 0);
    /// Time (s).
    pub const TIME: Dim = Dim::new(0, 0, 1, 0, 0, 0);
    /// Current (A).
    pub const CURRENT: Dim = Dim::new(0, 0, 0, 1, 0, 0);
    /// Temperature (K).
    pub const TEMPERATURE: Dim = Dim::new(0, 0, 0, 0, 1, 0);
    /// Energy (J = kg m² s⁻²).
    pub const ENERGY: Dim = Dim::new(2, 1, -2, 0, 0, 0);
    /// Power (W).
    pub const POWER: Dim = Dim::new(2, 1, -3, 0, 0, 0);
    /// Voltage (V = W/A).
    pub const VOLTAGE: Dim = Dim::new(2, 1, -3, -1, 0, 0);
    /// Resistance (Ω = V/A).
    pub const RESISTANCE: Dim = Dim::new(2, 1, -3, -2, 0, 0);
    /// Capacitance (F = A s / V).
    pub const CAPACITANCE: Dim = Dim::new(-2, -1, 4, 2, 0, 0);
    /// Feature-size area (F²).
    pub const FEATURE_AREA: Dim = Dim::new(0, 0, 0, 0, 0, 2);

    /// `self · other^p`, usable in constants.
    pub const fn mul_const(self, o: Dim, p: i8) -> Dim {
        Dim::new(
            self.m + o.m * p,
            self.kg + o.kg * p,
            self.s + o.s * p,
            self.a + o.a * p,
            self.k + o.k * p,
            self.f + o.f * p,
        )
    }
    fn mul(self, o: Dim) -> Dim {
        Dim::new(
            self.m + o.m,
            self.kg + o.kg,
            self.s + o.s,
            self.a + o.a,
            self.k + o.k,
            self.f + o.f,
        )
    }
    fn pow(self, p: i8) -> Dim {
        Dim::new(
            self.m * p,
            self.kg * p,
            self.s * p,
            self.a * p,
            self.k * p,
            self.f * p,
        )
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts = [
            ("m", self.m),
            ("kg", self.kg),
            ("s", self.s),
            ("A", self.a),
            ("K", self.k),
            ("F(feature)", self.f),
        ];
        let mut first = true;
        for (n, e) in parts {
            if e != 0 {
                if !first {
                    write!(f, "·")?;
                }
                first = false;
                if e == 1 {
                    write!(f, "{n}")?;
                } else {
                    write!(f, "{n}^{e}")?;
                }
            }
        }
        if first {
            write!(f, "1")?;
        }
        Ok(())
    }
}

/// A parsed quantity: SI value and dimension.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantity {
    /// Value in SI base units (or F^n for feature-size units).
    pub value: f64,
    /// Dimension.
    pub dim: Dim,
}

fn prefix(c: &str) -> Option<f64> {
    Some(match c {
        "y" => 1e-24,
        "z" => 1e-21,
        "a" => 1e-18,
        "f" => 1e-15,
        "p" => 1e-12,
        "n" => 1e-9,
        "u" | "µ" | "μ" => 1e-6,
        "m" => 1e-3,
        "c" => 1e-2,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        _ => return None,
    })
}

/// Base symbols: (symbol, scale to SI, dimension).
fn base_symbol(s: &str) -> Option<(f64, Dim)> {
    Some(match s {
        "m" => (1.0, Dim::LENGTH),
        "g" => (1e-3, Dim::new(0, 1, 0, 0, 0, 0)),
        "s" => (1.0, Dim::TIME),
        "A" => (1.0, Dim::CURRENT),
        "K" => (1.0, Dim::TEMPERATURE),
        "J" => (1.0, Dim::ENERGY),
        "W" => (1.0, Dim::POWER),
        "V" => (1.0, Dim::VOLTAGE),
        "Ohm" | "ohm" | "Ω" => (1.0, Dim::RESISTANCE),
        "F" => (1.0, Dim::CAPACITANCE),
        "Hz" => (1.0, Dim::new(0, 0, -1, 0, 0, 0)),
        _ => return None,
    })
}

fn parse_symbol(sym: &str, text: &str) -> Result<(f64, Dim), UnitError> {
    let unknown = || UnitError::UnknownUnit {
        unit: sym.to_string(),
        text: text.to_string(),
    };
    if let Some(v) = base_symbol(sym) {
        return Ok(v);
    }
    // try prefix + base (prefix is one char, possibly multi-byte µ)
    let mut chars = sym.char_indices();
    if let Some((_, _c)) = chars.next() {
        let split = chars.next().map(|(i, _)| i).unwrap_or(sym.len());
        let (p, rest) = sym.split_at(split);
        if let (Some(pv), Some((bv, d))) = (prefix(p), base_symbol(rest)) {
            // kg: prefix applies to g
            return Ok((pv * bv, d));
        }
    }
    Err(unknown())
}

/// Parses a factor like `um`, `F^2`, `m^-1`.
fn parse_factor(f: &str, text: &str) -> Result<(f64, Dim), UnitError> {
    let (sym, exp) = match f.split_once('^') {
        Some((s, e)) => {
            let e: i8 = e.trim().parse().map_err(|_| UnitError::UnknownUnit {
                unit: f.to_string(),
                text: text.to_string(),
            })?;
            (s.trim(), e)
        }
        None => {
            // allow trailing ² / ³
            if let Some(s) = f.strip_suffix('²') {
                (s, 2)
            } else if let Some(s) = f.strip_suffix('³') {
                (s, 3)
            } else {
                (f, 1)
            }
        }
    };
    // "F" alone followed by ^2 in an area context is ambiguous with farad; we treat
    // the exact forms "F^2"/"F²" as feature-size area (farad² is never meaningful here).
    if sym == "F" && exp == 2 {
        return Ok((1.0, Dim::FEATURE_AREA));
    }
    let (v, d) = parse_symbol(sym, text)?;
    Ok((v.powi(exp as i32), d.pow(exp)))
}

/// Parses a unit expression like `fF/um`, `A/um`, `Ohm/um`, `um^2` into (scale, dim).
pub fn parse_unit(unit: &str, text: &str) -> Result<(f64, Dim), UnitError> {
    let unit = unit.trim();
    if unit.is_empty() {
        return Ok((1.0, Dim::NONE));
    }
    let mut scale = 1.0;
    let mut dim = Dim::NONE;
    // split on '/' — first segment multiplies, the rest divide
    for (i, seg) in unit.split('/').enumerate() {
        for f in seg.split(['*', '·', ' ']).filter(|s| !s.is_empty()) {
            let (v, d) = parse_factor(f, text)?;
            if i == 0 {
                scale *= v;
                dim = dim.mul(d);
            } else {
                scale /= v;
                dim = dim.mul(d.pow(-1));
            }
        }
    }
    Ok((scale, dim))
}

/// Parses `"<number> <unit>"` into a [`Quantity`].
///
/// ```
/// use regwatt_tech::units::{parse_quantity, Dim};
/// let q = parse_quantity("1.2 fF/um").unwrap();
/// assert_eq!(q.dim, Dim::CAPACITANCE.mul_public(Dim::LENGTH, -1));
/// assert!((q.value - 1.2e-9).abs() < 1e-20);
/// ```
pub fn parse_quantity(text: &str) -> Result<Quantity, UnitError> {
    let t = text.trim();
    // number ends at first char that cannot be part of a float
    let mut end = 0;
    let bytes = t.as_bytes();
    while end < bytes.len() {
        let c = bytes[end] as char;
        let ok = c.is_ascii_digit()
            || c == '.'
            || c == '+'
            || c == '-'
            || ((c == 'e' || c == 'E')
                && end + 1 < bytes.len()
                && (bytes[end + 1].is_ascii_digit()
                    || bytes[end + 1] == b'-'
                    || bytes[end + 1] == b'+'));
        if !ok {
            break;
        }
        end += 1;
    }
    let num: f64 = t[..end].parse().map_err(|_| UnitError::BadNumber {
        text: text.to_string(),
    })?;
    let (scale, dim) = parse_unit(&t[end..], text)?;
    let value = num * scale;
    if !value.is_finite() {
        return Err(UnitError::NotFinite {
            text: text.to_string(),
        });
    }
    Ok(Quantity { value, dim })
}

impl Dim {
    /// `self · other^p` (public helper for callers building compound dimensions).
    pub fn mul_public(self, other: Dim, p: i8) -> Dim {
        self.mul(other.pow(p))
    }
}

/// Parses `text` and checks it has dimension `expected`; returns the SI value.
pub fn parse_as(text: &str, expected: Dim) -> Result<f64, UnitError> {
    let q = parse_quantity(text)?;
    if q.dim != expected {
        return Err(UnitError::WrongDimension {
            text: text.to_string(),
            found: q.dim.to_string(),
            expected: expected.to_string(),
        });
    }
    Ok(q.value)
}

macro_rules! quantity {
    ($(#[$doc:meta])* $name:ident, $dim:expr, $unit:literal, [$(($from:ident, $get:ident, $scale:expr)),*]) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
        pub struct $name(pub f64);

        impl $name {
            /// Zero.
            pub const ZERO: $name = $name(0.0);
            /// From the SI value.
            pub const fn new(si: f64) -> Self { $name(si) }
            /// The SI value.
            pub const fn si(self) -> f64 { self.0 }
            /// The dimension of this quantity.
            pub const DIM: Dim = $dim;
            /// The SI unit symbol.
            pub const UNIT: &'static str = $unit;
            $(
                #[doc = concat!("From a value in units scaled by ", stringify!($scale), ".")]
                pub fn $from(v: f64) -> Self { $name(v * $scale) }
                #[doc = concat!("Value in units scaled by ", stringify!($scale), ".")]
                pub fn $get(self) -> f64 { self.0 / $scale }
            )*
            /// Parses a unit string of this dimension (e.g. `"0.96 V"`).
            pub fn parse(text: &str) -> Result<Self, UnitError> {
                parse_as(text, $dim).map($name)
            }
            /// Larger of two.
            pub fn max(self, o: Self) -> Self { if self.0 >= o.0 { self } else { o } }
            /// Smaller of two.
            pub fn min(self, o: Self) -> Self { if self.0 <= o.0 { self } else { o } }
        }
        impl Add for $name { type Output = $name; fn add(self, o: $name) -> $name { $name(self.0 + o.0) } }
        impl Sub for $name { type Output = $name; fn sub(self, o: $name) -> $name { $name(self.0 - o.0) } }
        impl AddAssign for $name { fn add_assign(&mut self, o: $name) { self.0 += o.0 } }
        impl SubAssign for $name { fn sub_assign(&mut self, o: $name) { self.0 -= o.0 } }
        impl Neg for $name { type Output = $name; fn neg(self) -> $name { $name(-self.0) } }
        impl Mul<f64> for $name { type Output = $name; fn mul(self, k: f64) -> $name { $name(self.0 * k) } }
        impl Mul<$name> for f64 { type Output = $name; fn mul(self, q: $name) -> $name { $name(self * q.0) } }
        impl Div<f64> for $name { type Output = $name; fn div(self, k: f64) -> $name { $name(self.0 / k) } }
        impl Div<$name> for $name { type Output = f64; fn div(self, o: $name) -> f64 { self.0 / o.0 } }
        impl std::iter::Sum for $name { fn sum<I: Iterator<Item = $name>>(it: I) -> $name { $name(it.map(|q| q.0).sum()) } }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{} {}", fmt_g(self.0), $unit)
            }
        }
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                #[derive(Deserialize)]
                #[serde(untagged)]
                enum Raw { S(String), N(f64) }
                match Raw::deserialize(d)? {
                    Raw::S(s) => $name::parse(&s).map_err(serde::de::Error::custom),
                    Raw::N(n) => Ok($name(n)),
                }
            }
        }
    };
}

/// Formats with enough digits to round-trip.
fn fmt_g(v: f64) -> String {
    format!("{v:e}")
}

quantity!(
    /// Length (m).
    Length, Dim::LENGTH, "m",
    [(from_m, m, 1.0), (from_mm, mm, 1e-3), (from_um, um, 1e-6), (from_nm, nm, 1e-9)]
);
quantity!(
    /// Area (m²).
    Area, Dim::AREA, "m^2",
    [(from_m2, m2, 1.0), (from_mm2, mm2, 1e-6), (from_um2, um2, 1e-12), (from_nm2, nm2, 1e-18)]
);
quantity!(
    /// Capacitance (F).
    Capacitance, Dim::CAPACITANCE, "F",
    [(from_f, f, 1.0), (from_pf, pf, 1e-12), (from_ff, ff, 1e-15), (from_af, af, 1e-18)]
);
quantity!(
    /// Resistance (Ω).
    Resistance, Dim::RESISTANCE, "Ohm",
    [(from_ohm, ohm, 1.0), (from_kohm, kohm, 1e3)]
);
quantity!(
    /// Voltage (V).
    Voltage, Dim::VOLTAGE, "V",
    [(from_v, v, 1.0), (from_mv, mv, 1e-3)]
);
quantity!(
    /// Current (A).
    Current, Dim::CURRENT, "A",
    [(from_a, a, 1.0), (from_ma, ma, 1e-3), (from_ua, ua, 1e-6), (from_na, na, 1e-9)]
);
quantity!(
    /// Energy (J).
    Energy, Dim::ENERGY, "J",
    [(from_j, j, 1.0), (from_nj, nj, 1e-9), (from_pj, pj, 1e-12), (from_fj, fj, 1e-15)]
);
quantity!(
    /// Power (W).
    Power, Dim::POWER, "W",
    [(from_w, w, 1.0), (from_mw, mw, 1e-3), (from_uw, uw, 1e-6), (from_nw, nw, 1e-9)]
);
quantity!(
    /// Time (s).
    Time, Dim::TIME, "s",
    [(from_s, s, 1.0), (from_ns, ns, 1e-9), (from_ps, ps, 1e-12)]
);
quantity!(
    /// Absolute temperature (K).
    Temperature, Dim::TEMPERATURE, "K",
    [(from_k, k, 1.0)]
);

quantity!(
    /// Capacitance per unit length (F/m); e.g. wire or gate capacitance per width.
    CapacitancePerLength, Dim::CAPACITANCE.mul_const(Dim::LENGTH, -1), "F/m",
    [(from_f_per_m, f_per_m, 1.0), (from_f_per_um, f_per_um, 1e6), (from_ff_per_um, ff_per_um, 1e-9)]
);
quantity!(
    /// Capacitance per unit area (F/m²); e.g. junction or oxide capacitance.
    CapacitancePerArea, Dim::CAPACITANCE.mul_const(Dim::AREA, -1), "F/m^2",
    [(from_f_per_m2, f_per_m2, 1.0), (from_f_per_um2, f_per_um2, 1e12)]
);
quantity!(
    /// Resistance per unit length (Ω/m); wires.
    ResistancePerLength, Dim::RESISTANCE.mul_const(Dim::LENGTH, -1), "Ohm/m",
    [(from_ohm_per_m, ohm_per_m, 1.0), (from_ohm_per_um, ohm_per_um, 1e6)]
);
quantity!(
    /// Current per unit device width (A/m); device on/off/gate currents.
    CurrentPerWidth, Dim::CURRENT.mul_const(Dim::LENGTH, -1), "A/m",
    [(from_a_per_m, a_per_m, 1.0), (from_a_per_um, a_per_um, 1e6)]
);
quantity!(
    /// Resistance times width (Ω·m); on-resistance of a unit-width device.
    ResistanceWidth, Dim::RESISTANCE.mul_const(Dim::LENGTH, 1), "Ohm*m",
    [(from_ohm_m, ohm_m, 1.0), (from_ohm_um, ohm_um, 1e-6)]
);

impl CapacitancePerLength {
    /// Capacitance of a length (or device width) `l`.
    pub fn times(self, l: Length) -> Capacitance {
        Capacitance(self.0 * l.0)
    }
}
impl ResistancePerLength {
    /// Resistance of a wire of length `l`.
    pub fn times(self, l: Length) -> Resistance {
        Resistance(self.0 * l.0)
    }
}
impl CurrentPerWidth {
    /// Current of a device of width `w`.
    pub fn times(self, w: Length) -> Current {
        Current(self.0 * w.0)
    }
}
impl CapacitancePerArea {
    /// Capacitance of an area `a`.
    pub fn times(self, a: Area) -> Capacitance {
        Capacitance(self.0 * a.0)
    }
}
impl ResistanceWidth {
    /// On-resistance of a device of width `w`.
    pub fn over(self, w: Length) -> Resistance {
        Resistance(self.0 / w.0)
    }
}

// Cross-dimension arithmetic that is physically meaningful.
impl Mul<Length> for Length {
    type Output = Area;
    fn mul(self, o: Length) -> Area {
        Area(self.0 * o.0)
    }
}
impl Div<Length> for Area {
    type Output = Length;
    fn div(self, o: Length) -> Length {
        Length(self.0 / o.0)
    }
}
impl Mul<Voltage> for Current {
    type Output = Power;
    fn mul(self, v: Voltage) -> Power {
        Power(self.0 * v.0)
    }
}
impl Mul<Current> for Voltage {
    type Output = Power;
    fn mul(self, i: Current) -> Power {
        Power(self.0 * i.0)
    }
}
impl Mul<Time> for Power {
    type Output = Energy;
    fn mul(self, t: Time) -> Energy {
        Energy(self.0 * t.0)
    }
}
impl Div<Time> for Energy {
    type Output = Power;
    fn div(self, t: Time) -> Power {
        Power(self.0 / t.0)
    }
}
impl Mul<Capacitance> for Resistance {
    type Output = Time;
    fn mul(self, c: Capacitance) -> Time {
        Time(self.0 * c.0)
    }
}
impl Mul<Resistance> for Capacitance {
    type Output = Time;
    fn mul(self, r: Resistance) -> Time {
        Time(self.0 * r.0)
    }
}
impl Div<Current> for Voltage {
    type Output = Resistance;
    fn div(self, i: Current) -> Resistance {
        Resistance(self.0 / i.0)
    }
}
impl Capacitance {
    /// Switching energy `C·V²` (charge and discharge of the node over a full cycle; CACTI
    /// counts `C·V²` per access for full-swing nodes, `C·V·ΔV` for reduced swing).
    pub fn energy_cv2(self, v: Voltage) -> Energy {
        Energy(self.0 * v.0 * v.0)
    }
}

/// Serialisers for reports: a quantity as a plain number in the unit its key names
/// (`#[serde(rename = "total_j", serialize_with = "units::report::j")]`), so JSON and CSV
/// readers get numbers (pandas, jq) and the unit is in the key: `_j`, `_pj`, `_w`, `_mw`,
/// `_s`, `_mm2`, `_k`. The quantities' own `Serialize` keeps unit strings (`"0.96 V"`) for
/// configuration files.
pub mod report {
    use std::collections::BTreeMap;

    use serde::Serializer;

    use super::{Area, Energy, Power, Temperature, Time};

    macro_rules! as_unit {
        ($($(#[$doc:meta])* $fn:ident, $map:ident: $ty:ident . $get:ident;)*) => {$(
            $(#[$doc])*
            pub fn $fn<S: Serializer>(q: &$ty, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_f64(q.$get())
            }
            $(#[$doc])*
            /// (Every value of a map.)
            pub fn $map<S: Serializer>(m: &BTreeMap<String, $ty>, s: S) -> Result<S::Ok, S::Error> {
                s.collect_map(m.iter().map(|(k, v)| (k, v.$get())))
            }
        )*};
    }

    as_unit! {
        /// Joules (`_j`): a run's energies.
        j, map_j: Energy.j;
        /// Picojoules (`_pj`): energy per event.
        pj, map_pj: Energy.pj;
        /// Watts (`_w`).
        w, map_w: Power.w;
        /// Milliwatts (`_mw`): leakage of one instance.
        mw, map_mw: Power.mw;
        /// Seconds (`_s`).
        s, map_s: Time.s;
        /// Square millimetres (`_mm2`).
        mm2, map_mm2: Area.mm2;
        /// Kelvin (`_k`).
        k, map_k: Temperature.k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_examples() {
        assert_eq!(Voltage::parse("0.96 V").unwrap().v(), 0.96);
        let q = parse_quantity("1.2 fF/um").unwrap();
        assert_eq!(q.dim, Dim::CAPACITANCE.mul_public(Dim::LENGTH, -1));
        assert!((q.value - 1.2e-9).abs() < 1e-21);
        let q = parse_quantity("146 F^2").unwrap();
        assert_eq!(q.dim, Dim::FEATURE_AREA);
        assert_eq!(q.value, 146.0);
        let q = parse_quantity("4.5e-9 A/um").unwrap();
        assert!((q.value - 4.5e-3).abs() < 1e-15);
        assert_eq!(Temperature::parse("360 K").unwrap().k(), 360.0);
        assert!((Area::parse("0.07 um^2").unwrap().um2() - 0.07).abs() < 1e-12);
        assert!((Resistance::parse("2.5 kOhm").unwrap().ohm() - 2500.0).abs() < 1e-9);
        assert!((Time::parse("12 ps").unwrap().ns() - 0.012).abs() < 1e-15);
        assert!((Energy::parse("4.68 pJ").unwrap().pj() - 4.68).abs() < 1e-12);
    }

    #[test]
    fn errors_name_text() {
        let e = Voltage::parse("0.96 Q").unwrap_err();
        assert!(e.to_string().contains("0.96 Q"));
        let e = Voltage::parse("abc V").unwrap_err();
        assert!(e.to_string().contains("abc V"));
        let e = Voltage::parse("3 A").unwrap_err();
        assert!(matches!(e, UnitError::WrongDimension { .. }));
    }

    #[test]
    fn serde_roundtrip() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct S {
            e: Energy,
            t: Time,
        }
        let s = S {
            e: Energy::from_pj(4.68),
            t: Time::from_ns(0.22),
        };
        let j = toml::to_string(&s).unwrap();
        let back: S = toml::from_str(&j).unwrap();
        assert!((back.e.pj() - 4.68).abs() < 1e-12);
        assert!((back.t.ns() - 0.22).abs() < 1e-12);
    }

    #[test]
    fn per_length_units() {
        let c = CapacitancePerLength::parse("1.2 fF/um").unwrap();
        assert!((c.ff_per_um() - 1.2).abs() < 1e-12);
        let i = CurrentPerWidth::parse("4.5e-9 A/um").unwrap();
        assert!((i.a_per_um() - 4.5e-9).abs() < 1e-20);
        let r = ResistancePerLength::parse("4.2 Ohm/um").unwrap();
        assert!((r.times(Length::from_um(10.0)).ohm() - 42.0).abs() < 1e-9);
        let m = parse_quantity("2.6e10 um^2/V/s").unwrap();
        assert_eq!(
            m.dim,
            Dim::AREA
                .mul_const(Dim::VOLTAGE, -1)
                .mul_const(Dim::TIME, -1)
        );
    }

    #[test]
    fn arithmetic() {
        let e = Power::from_mw(2.0) * Time::from_ns(1.0);
        assert!((e.pj() - 2.0).abs() < 1e-12);
        let a = Length::from_um(2.0) * Length::from_um(3.0);
        assert!((a.um2() - 6.0).abs() < 1e-12);
        assert!(
            (Capacitance::from_ff(1.0)
                .energy_cv2(Voltage::from_v(1.0))
                .fj()
                - 1.0)
                .abs()
                < 1e-12
        );
    }
}
