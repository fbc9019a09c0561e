/// A request body's fields, read with Paddle's refusals: a wrong type, a missing required field or a value out of
/// range is `invalid_field` naming the field, never a trap.
struct RequestFields {
    let values: [String: PaddleJSON]
    /// Where these fields sit in the request (`unit_price.`), so a refusal names the field as sent.
    let path: String

    init(_ body: PaddleJSON, path: String = "") {
        values = body.object ?? [:]
        self.path = path
    }

    func has(_ name: String) -> Bool { values[name] != nil }

    func string(_ name: String, required: Bool = false, maxLength: Int = 255) throws(PaddleFailure) -> String? {
        switch values[name] {
        case nil, .null?:
            if required { throw .invalidField(path + name, "is required") }
            return nil
        case .string(let text)?:
            guard text.count <= maxLength else {
                throw .invalidField(path + name, "must be at most \(maxLength) characters")
            }
            if required, text.isEmpty { throw .invalidField(path + name, "must not be empty") }
            return text
        default: throw .invalidField(path + name, "must be a string")
        }
    }

    func oneOf(_ name: String, _ allowed: [String], required: Bool = false) throws(PaddleFailure) -> String? {
        guard let text = try string(name, required: required) else { return nil }
        guard allowed.contains(text) else {
            throw .invalidField(path + name, "must be one of \(allowed.joined(separator: ", "))")
        }
        return text
    }

    func int(_ name: String, in range: ClosedRange<Int64>) throws(PaddleFailure) -> Int64? {
        switch values[name] {
        case nil, .null?: return nil
        case .int(let number)?:
            guard range.contains(number) else {
                throw .invalidField(path + name, "must be between \(range.lowerBound) and \(range.upperBound)")
            }
            return number
        default: throw .invalidField(path + name, "must be an integer")
        }
    }

    func bool(_ name: String) throws(PaddleFailure) -> Bool? {
        switch values[name] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw .invalidField(path + name, "must be a boolean")
        }
    }

    func object(_ name: String) throws(PaddleFailure) -> RequestFields? {
        switch values[name] {
        case nil, .null?: return nil
        case .object?: return RequestFields(values[name] ?? .null, path: path + name + ".")
        default: throw .invalidField(path + name, "must be an object")
        }
    }

    func array(_ name: String, maxCount: Int) throws(PaddleFailure) -> [PaddleJSON]? {
        switch values[name] {
        case nil, .null?: return nil
        case .array(let items)?:
            guard items.count <= maxCount else {
                throw .invalidField(path + name, "must have at most \(maxCount) items")
            }
            return items
        default: throw .invalidField(path + name, "must be an array")
        }
    }

    /// `custom_data`: any JSON object, kept as sent (the request's size bounds it).
    func customData() throws(PaddleFailure) -> PaddleJSON? {
        switch values["custom_data"] {
        case nil: return nil
        case .null?: return .null
        case .object?: return values["custom_data"]
        default: throw .invalidField(path + "custom_data", "must be an object")
        }
    }

    /// A money amount in the currency's smallest unit, as Paddle writes it: a string of digits, here at most
    /// 10,000,000,000 so that no total can overflow.
    func amount(_ name: String, required: Bool = true) throws(PaddleFailure) -> Int64? {
        guard let text = try string(name, required: required, maxLength: 20) else { return nil }
        guard !text.isEmpty, text.count <= 11, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber),
            let value = Int64(text), value <= 10_000_000_000
        else { throw .invalidField(path + name, "must be a string of digits, at most 10000000000") }
        return value
    }
}

extension PaddleJSON {
    var object: [String: PaddleJSON]? {
        if case .object(let fields) = self { return fields }
        return nil
    }
}

/// Money arithmetic that cannot trap: amounts are bounded on the way in, and a share is computed at double width.
enum Money {
    /// `amount × numerator ÷ denominator`, rounded half up; 0 for a zero denominator.
    static func share(_ amount: Int64, _ numerator: Int64, _ denominator: Int64) -> Int64 {
        guard denominator > 0, amount >= 0, numerator >= 0 else { return 0 }
        let product = amount.multipliedFullWidth(by: numerator)
        let half = UInt64(denominator / 2)
        let (low, carry) = product.low.addingReportingOverflow(half)
        let high = product.high + (carry ? 1 : 0)
        guard high < denominator else { return Int64.max }
        return denominator.dividingFullWidth((high: high, low: low)).quotient
    }

    static func text(_ amount: Int64) -> PaddleJSON { .string(String(amount)) }

    static func value(_ json: PaddleJSON?) -> Int64 { json?.string.flatMap { Int64($0) } ?? 0 }

    /// A rate in hundredths of a percent as Paddle writes a rate: 1000 → "0.1", 2050 → "0.205".
    static func rate(_ basisPoints: Int64) -> String { decimal(basisPoints, places: 4) }

    /// `value` ÷ 10^`places` as Paddle writes a decimal, without trailing zeros: (920000, 6) → "0.92".
    static func decimal(_ value: Int64, places: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        var fraction = String(value % scale)
        fraction = String(repeating: "0", count: places - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? "\(value / scale)" : "\(value / scale).\(fraction)"
    }
}
