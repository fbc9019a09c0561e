import Tracing

/// What a span may not carry, taken out of its attributes before they are kept (docs/guides/operate.md, "Traces").
///
/// Spans never carry receipts, tokens, keys or bodies. The client spans AsyncHTTPClient makes record the URL they
/// call (`url.full`, `url.path`, `url.query`), and some URLs name a secret: Google Play's purchase methods take the
/// purchase token as a path segment (`…/subscriptionsv2/tokens/<token>`, `…/tokens/<token>:acknowledge`), Apple's
/// test notification status takes the test notification's token (`…/notifications/test/<token>`), and paging
/// tokens travel in the query (`paginationToken=`, Google's `token=`). Each such segment or value becomes
/// `REDACTED`; the rest of the URL (hosts, methods, ordinary ids such as transaction or subscription ids) stays.
public enum SpanRedaction {
    /// What replaces a secret.
    public static let placeholder = "REDACTED"

    /// Path segments whose next segment is a secret, as (the segment before, the segment): `tokens/<token>` is
    /// Google's purchase token, `test/<token>` after `notifications` Apple's test notification token.
    static let secretAfter: [(before: Substring?, segment: Substring)] = [
        (nil, "tokens"),
        ("notifications", "test"),
    ]

    /// `text` with every secret a URL, a path or a query can hold replaced; `text` itself when it holds none.
    public static func redacting(_ text: String) -> String {
        // Cheap refusal first: nearly every attribute names no token at all.
        guard text.contains("/tokens/") || text.contains("/notifications/test/") || text.contains("oken=") else {
            return text
        }
        let queryStart = text.firstIndex(where: { $0 == "?" || $0 == "#" })
        let pathPart = text[..<(queryStart ?? text.endIndex)]
        var result = redactingPath(pathPart)
        if let queryStart {
            // `url.query` alone has no `?`: it reaches here only through the guard's `oken=`, with no path.
            result += String(text[queryStart]) + redactingQuery(text[text.index(after: queryStart)...])
        } else if !pathPart.contains("/") {
            return redactingQuery(text[...])
        }
        return result
    }

    /// A path (or a URL up to its query) with each secret segment replaced; a custom method after a colon
    /// (`:acknowledge`) is kept, since tokens themselves hold no colon.
    static func redactingPath(_ path: Substring) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        var redacted: [Substring] = []
        redacted.reserveCapacity(segments.count)
        for (index, segment) in segments.enumerated() {
            let previous = index > 0 ? segments[index - 1] : nil
            let beforePrevious = index > 1 ? segments[index - 2] : nil
            let isSecret = secretAfter.contains { rule in
                previous == rule.segment && (rule.before == nil || beforePrevious == rule.before)
            }
            guard isSecret, !segment.isEmpty else {
                redacted.append(segment)
                continue
            }
            if let colon = segment.firstIndex(of: ":") {
                redacted.append(Substring(placeholder + segment[colon...]))
            } else {
                redacted.append(Substring(placeholder))
            }
        }
        return redacted.joined(separator: "/")
    }

    /// A query (without its `?`) with the value of every parameter whose name says it is a token replaced.
    static func redactingQuery(_ query: Substring) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<equals]
            guard name.lowercased().hasSuffix("token") else { return String(pair) }
            return name + "=" + placeholder
        }.joined(separator: "&")
    }

    /// The attribute names of the OpenTelemetry semantic conventions that replace older ones some libraries still
    /// write (AsyncHTTPClient's client spans say `http.status_code`).
    static let renamed: [String: String] = ["http.status_code": "http.response.status_code"]

    /// `attributes` as they may be kept: every string (and string array) value redacted, deprecated names renamed.
    public static func redacting(_ attributes: SpanAttributes) -> SpanAttributes {
        var result = SpanAttributes()
        attributes.forEach { name, value in
            result[renamed[name] ?? name] = redacting(value)
        }
        return result
    }

    static func redacting(_ attribute: SpanAttribute) -> SpanAttribute {
        switch attribute {
        case .string(let text): .string(redacting(text))
        case .stringArray(let texts): .stringArray(texts.map(redacting))
        case .stringConvertible(let value): .string(redacting(String(describing: value)))
        case .stringConvertibleArray(let values): .stringArray(values.map { redacting(String(describing: $0)) })
        default: attribute
        }
    }
}
