import SubLedgerCore

/// A Google Play order id: `GPA.3312-3456-7890-12345` for a purchase, with `..0`, `..1`, … appended for each
/// renewal of a subscription (and each recovery from account hold or resumption from a pause).
public struct GoogleOrderID: Hashable, Sendable, CustomStringConvertible {
    /// The purchase's order id, without a renewal suffix.
    public var base: String
    /// The renewal's number (`..N`), `nil` for the purchase's own order.
    public var renewal: Int?

    /// Reads `raw`; `nil` when it breaks `IdentifierRule.transactionID` (Google's ids are short ASCII) or its
    /// suffix is not `..` and a number below a million.
    public init?(_ raw: String) {
        guard IdentifierRule.transactionID.accepts(raw) else { return nil }
        if let range = raw.range(of: "..", options: .backwards) {
            let digits = raw[range.upperBound...]
            guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy(\.isASCII), let number = Int(digits),
                range.lowerBound > raw.startIndex
            else { return nil }
            base = String(raw[..<range.lowerBound])
            renewal = number
        } else {
            base = raw
            renewal = nil
        }
    }

    public var description: String { renewal.map { "\(base)..\($0)" } ?? base }
}
