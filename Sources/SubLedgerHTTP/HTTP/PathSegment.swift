/// A path parameter as the client meant it. The router matches and captures the raw segments of the path;
/// each parameter is percent-decoded here (RFC 3986, section 2.1) before any rule reads it, so
/// `bob%40example.com` and `al%69ce` name `bob@example.com` and `alice`, for the router's handlers and for the event
/// loop's entitlement reads (`EntitlementReadRoute`) alike. A segment that
/// cannot be decoded is refused with the parameter's own 400 code (`invalid_account_id`, ...), with a message
/// saying why.
enum PathSegment {
    /// Why a segment cannot be decoded.
    enum Refusal: Error, Equatable {
        /// A `%` not followed by two hex digits.
        case malformedEscape
        /// `%2F`: a `/` inside one segment, which no parameter can hold (the route is matched on raw segments).
        case encodedSlash
        /// `%00`, or escapes whose bytes are not UTF-8.
        case invalidText

        func message(parameter: String) -> String {
            switch self {
            case .malformedEscape: "'\(parameter)' has a '%' that is not followed by two hex digits"
            case .encodedSlash: "'\(parameter)' holds an encoded '/' (%2F), which a path segment cannot hold"
            case .invalidText: "'\(parameter)' decodes to NUL or to bytes that are not UTF-8"
            }
        }
    }

    /// `raw` with its percent-escapes decoded.
    static func decode(_ raw: some StringProtocol) -> Result<String, Refusal> {
        let utf8 = raw.utf8
        guard utf8.contains(UInt8(ascii: "%")) else { return .success(String(raw)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            index = utf8.index(after: index)
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard index != utf8.endIndex, let high = hexValue(utf8[index]) else { return .failure(.malformedEscape) }
            index = utf8.index(after: index)
            guard index != utf8.endIndex, let low = hexValue(utf8[index]) else { return .failure(.malformedEscape) }
            index = utf8.index(after: index)
            let decoded = high << 4 | low
            if decoded == UInt8(ascii: "/") { return .failure(.encodedSlash) }
            if decoded == 0 { return .failure(.invalidText) }
            bytes.append(decoded)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .failure(.invalidText) }
        return .success(text)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension SubLedgerRequestContext {
    /// The route's path parameter `name`, percent-decoded; when it cannot be, the error `refusal` makes of a
    /// message saying why (the parameter's own 400).
    func pathParameter(_ name: String, refusal: (String) -> any Error) throws -> String {
        switch PathSegment.decode(parameters.get(name) ?? "") {
        case .success(let text): return text
        case .failure(let refused): throw refusal(refused.message(parameter: name))
        }
    }
}
