// Float formatting compatible with Go's strconv.FormatFloat, as starlark-go uses it.
//
// str(x) and "%g" use Go's 'g' format with the shortest round-tripping digits (JS's
// toExponential() with no argument yields exactly those digits), switching to exponent form
// when the decimal exponent is < -4 or >= 6 (Go's rule for shortest precision), and
// appending ".0" when the result would otherwise look like an int. "%e" and "%f" use six
// digits of precision. Non-finite values print as "+inf", "-inf" and "nan".

function nonFinite(x: number): string | undefined {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "+inf";
  if (x === -Infinity) return "-inf";
  return undefined;
}

function expSuffix(e: number): string {
  const abs = Math.abs(e);
  return `e${e < 0 ? "-" : "+"}${abs < 10 ? "0" : ""}${abs}`;
}

// Go's %g with shortest digits, plus Starlark's ".0" rule.
// eslint-disable-next-line complexity -- the layout cases of Go's %g
export function formatG(x: number): string {
  const nf = nonFinite(x);
  if (nf !== undefined) return nf;
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const neg = x < 0;
  const [mant = "", expStr = "0"] = Math.abs(x).toExponential().split("e");
  const exp = Number(expStr);
  const digits = mant.replace(".", "");
  let s: string;
  if (exp < -4 || exp >= 6) {
    s =
      (digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits) +
      expSuffix(exp);
  } else if (exp < 0) {
    s = `0.${"0".repeat(-exp - 1)}${digits}`;
  } else if (digits.length > exp + 1) {
    s = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  } else {
    s = `${digits}${"0".repeat(exp + 1 - digits.length)}.0`;
  }
  return neg ? `-${s}` : s;
}

export function formatE(x: number, prec = 6): string {
  const nf = nonFinite(x);
  if (nf !== undefined) return nf;
  const s = Math.abs(x).toExponential(prec);
  const [mant = "", expStr = "0"] = s.split("e");
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  return `${sign}${mant}${expSuffix(Number(expStr))}`;
}

// toFixed rounds exact ties away from zero; Go and Python round them to even ("%.1f" of 2.25
// is "2.2"). A tie is visible in the longer exact expansion as a 5 followed only by zeros.
function toFixedHalfEven(a: number, prec: number): string {
  const fixed = a.toFixed(prec);
  if (prec > 70) return fixed;
  const long = a.toFixed(prec + 30);
  const cut = long.length - 30;
  if (!/^50*$/.test(long.slice(cut))) return fixed;
  const kept = long.slice(0, cut);
  const lastDigit = Number(
    kept[kept.length - 1] === "."
      ? kept[kept.length - 2]
      : kept[kept.length - 1],
  );
  return lastDigit % 2 === 0 ? kept.replace(/\.$/, "") : fixed;
}

export function formatF(x: number, prec = 6): string {
  const nf = nonFinite(x);
  if (nf !== undefined) return nf;
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  const a = Math.abs(x);
  if (a < 1e21) return sign + toFixedHalfEven(a, prec);
  // Large floats are integers; print their exact decimal expansion as Go does.
  return `${sign}${BigInt(a).toString()}${prec > 0 ? "." + "0".repeat(prec) : ""}`;
}
