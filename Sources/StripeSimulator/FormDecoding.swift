import Foundation

/// Stripe's request parameters: `application/x-www-form-urlencoded` pairs (a body, or a GET's query) in bracket
/// notation, read into nested values: `metadata[order]=7` is `metadata.order`, `items[0][price]=p` the first item's
/// price, `expand[]=a&expand[]=b` a list.
struct FormParameters: Sendable {
    private(set) var root: JSONValue = .object([:])

    /// Parses `text`; `nil` for a malformed key (an unclosed bracket) or more than 1,000 pairs.
    init?(_ text: String) {
        let pairs = text.split(separator: "&", omittingEmptySubsequences: true)
        guard pairs.count <= 1000 else { return nil }
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawKey = String(parts[0]).replacingOccurrences(of: "+", with: " ")
            let rawValue = parts.count > 1 ? String(parts[1]).replacingOccurrences(of: "+", with: " ") : ""
            guard let key = rawKey.removingPercentEncoding, let value = rawValue.removingPercentEncoding,
                let path = Self.path(of: key)
            else { return nil }
            Self.insert(.string(value), at: path[...], into: &root)
        }
    }

    /// `a[b][0][]` as `["a", "b", "0", ""]`.
    static func path(of key: String) -> [String]? {
        guard let open = key.firstIndex(of: "[") else { return key.isEmpty ? nil : [key] }
        var path = [String(key[..<open])]
        var rest = key[open...]
        while !rest.isEmpty {
            guard rest.first == "[", let close = rest.firstIndex(of: "]") else { return nil }
            path.append(String(rest[rest.index(after: rest.startIndex)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return path.first?.isEmpty == false ? path : nil
    }

    private static func insert(_ value: JSONValue, at path: ArraySlice<String>, into node: inout JSONValue) {
        guard let head = path.first else {
            node = value
            return
        }
        let rest = path.dropFirst()
        if head.isEmpty {
            // `key[]`: appended to a list.
            var items = node.array ?? []
            var child: JSONValue = rest.isEmpty ? .null : .object([:])
            insert(value, at: rest, into: &child)
            items.append(child)
            node = .array(items)
            return
        }
        if case .object(var fields) = node {
            var child = fields[head] ?? .object([:])
            insert(value, at: rest, into: &child)
            fields[head] = child
            node = .object(fields)
        } else {
            var fields: [String: JSONValue] = [:]
            var child: JSONValue = .object([:])
            insert(value, at: rest, into: &child)
            fields[head] = child
            node = .object(fields)
        }
    }

    subscript(key: String) -> JSONValue? { root[key] }

    func string(_ key: String) -> String? { root[key]?.string }

    /// A nested parameter: `value("items", "0", "price")`.
    func value(_ keys: String...) -> JSONValue? {
        var node: JSONValue? = root
        for key in keys { node = node?[key] }
        return node
    }

    /// The entries of an indexed list (`items[0]…`, `items[1]…`) in index order.
    func indexed(_ key: String) -> [JSONValue] {
        guard case .object(let fields)? = root[key] else { return root[key]?.array ?? [] }
        return fields.compactMap { index, value in Int(index).map { ($0, value) } }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// `metadata[…]` as a JSON object of strings.
    func metadata(_ node: JSONValue?) -> JSONValue {
        guard case .object(let fields)? = node else { return .object([:]) }
        return .object(fields.compactMapValues { $0.string.map(JSONValue.string) })
    }
}
