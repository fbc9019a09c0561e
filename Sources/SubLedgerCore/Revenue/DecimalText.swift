/// Exact decimal text to scaled integers and back: prices are milli-units (`9.99` is 9 990), tax rates
/// parts per million. No floating point touches an amount.
public enum DecimalText {
    /// `text` (`9.99`, `0`, `1234.5`) times 10^`fractionDigits`, or `nil` when it is not a plain non-negative
    /// decimal with at most `fractionDigits` digits after the point, or it exceeds `maximum`.
    public static func scaled(_ text: String, fractionDigits: Int, maximum: Int64 = Int64.max) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty, whole.count <= 18 else {
            return nil
        }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard parts.count == 1 || !fraction.isEmpty, fraction.count <= fractionDigits,
            whole.allSatisfy({ $0.isASCII && $0.isNumber }), fraction.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        var value: Int64 = 0
        for character in whole + fraction + String(repeating: "0", count: fractionDigits - fraction.count) {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (plus, overflow2) = times.addingReportingOverflow(Int64(character.wholeNumberValue ?? 0))
            guard !overflow1, !overflow2 else { return nil }
            value = plus
        }
        return value <= maximum ? value : nil
    }

    /// `value` / 10^`fractionDigits` as text with exactly `fractionDigits` digits after the point (`9.990`).
    public static func text(_ value: Int64, fractionDigits: Int) -> String {
        let negative = value < 0
        let magnitude = value.magnitude
        var divisor: UInt64 = 1
        for _ in 0..<fractionDigits { divisor *= 10 }
        let whole = magnitude / divisor
        let fraction = String(magnitude % divisor)
        let padded = String(repeating: "0", count: fractionDigits - fraction.count) + fraction
        return (negative ? "-" : "") + String(whole) + (fractionDigits > 0 ? "." + padded : "")
    }

    /// A milli-unit amount as text (`9990` → `9.990`).
    public static func milliunits(_ value: Int64) -> String { text(value, fractionDigits: 3) }
}
