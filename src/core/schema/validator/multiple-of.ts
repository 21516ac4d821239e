/**
 * `multipleOf` without floating-point error: 0.3 is a multiple of 0.1 here, though
 * 0.3 / 0.1 is 2.9999999999999996 in binary. Both numbers are taken as the decimals
 * JavaScript prints for them (the shortest round-tripping form), turned into integer
 * mantissas with a power of ten, and compared with BigInt arithmetic.
 */

/** `value` (finite, non-negative) as `mantissa × 10^exponent` with an integer mantissa. */
function decimal(value: number): { mantissa: bigint; exponent: number } {
  const [coefficient = '0', power = '0'] = value.toString().split('e');
  const point = coefficient.indexOf('.');
  const fraction = point < 0 ? 0 : coefficient.length - point - 1;
  return { mantissa: BigInt(coefficient.replace('.', '')), exponent: Number(power) - fraction };
}

/** The work a multipleOf check costs: the powers of ten it may build (at most ~630 digits). */
export function multipleOfCost(value: number, divisor: number): number {
  if (Number.isSafeInteger(value) && Number.isSafeInteger(divisor)) return 1;
  return 8 + Math.abs(Math.floor(Math.log10(Math.abs(value) || 1)) - Math.floor(Math.log10(divisor)));
}

/** Whether `value` is an integer multiple of `divisor` (> 0); both finite. */
export function isMultipleOf(value: number, divisor: number): boolean {
  if (value === 0) return true;
  if (Number.isSafeInteger(value) && Number.isSafeInteger(divisor)) return value % divisor === 0;
  // A multiple of an integer is an integer.
  if (Number.isInteger(divisor) && !Number.isInteger(value)) return false;
  const a = decimal(Math.abs(value));
  const b = decimal(divisor);
  const shift = a.exponent - b.exponent;
  return shift >= 0
    ? (a.mantissa * 10n ** BigInt(shift)) % b.mantissa === 0n
    : a.mantissa % (b.mantissa * 10n ** BigInt(-shift)) === 0n;
}
