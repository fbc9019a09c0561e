import SubLedgerStore

/// The keys a catalog file may hold at each place, so that a misspelt or invented key (`ownership_polcy`, a key
/// from another product's documents) is refused with its name and place instead of silently meaning the default.
///
/// The check reads the file's shape only; the values are decoded and validated afterwards (`Catalog`, `App`).
enum CatalogKeys {
    /// What may stand at one place of the file.
    indirect enum Shape: Sendable {
        /// A mapping: its known keys, each with what may stand under it.
        case mapping([String: Shape])
        /// A sequence of entries of one shape.
        case sequence(Shape)
        /// A value the decoders check (a scalar, or a list of scalars).
        case value
    }

    /// The file's shape, its apps holding `sections` beside their own keys.
    static func file(sections: [StoreCatalogSection] = []) -> Shape {
        guard case .mapping(var keys) = app else { return .mapping(["apps": .sequence(app)]) }
        for section in sections { keys[section.key] = .mapping(section.keys.reduce(into: [:]) { $0[$1] = .value }) }
        return .mapping(["apps": .sequence(.mapping(keys))])
    }

    static let app: Shape = .mapping([
        "bundle_id": .value, "apple_app_id": .value, "environments": .value,
        "ownership": .value, "ownership_policy": .value,
        "products": .sequence(product),
        "consumption": .mapping([
            "enabled": .value, "refund_preference": .value, "endpoint": .value, "sample_content_provided": .value,
        ]),
        "write_back": .mapping(["app_account_tokens": .value, "finish_transactions": .value]),
        "google_play": .mapping([
            "package_name": .value, "push_audience": .value, "push_service_account": .value,
            "service_account_key": .value, "service_account_key_file": .value,
        ]),
        "external_purchase": .mapping(["report": .value, "tax_country": .value]),
        "shared_secret": .value,
        "server_api": .mapping([
            "issuer_id": .value, "key_id": .value, "private_key": .value, "private_key_file": .value,
        ]),
    ])

    static let product: Shape = .mapping([
        "product_id": .value, "type": .value, "subscription_group_id": .value, "group_level": .value,
        "entitlements": .value, "credits": .value, "duration_days": .value, "store": .value,
        "prices": .sequence(
            .mapping(["storefront": .value, "currency": .value, "price": .value, "effective_from": .value])),
    ])

    /// Refuses the keys `shape` does not know at the first place holding any, naming them, the place and the known keys.
    static func check(_ node: Node, against shape: Shape, at place: String = "") throws(CatalogFileError) {
        switch (shape, node) {
        case (.mapping(let known), .mapping(let entries)):
            let unknown = entries.map(\.key).filter { known[$0] == nil }.sorted()
            if !unknown.isEmpty {
                throw CatalogFileError(
                    "unknown key\(unknown.count == 1 ? "" : "s") \(unknown.map { "'\($0)'" }.joined(separator: ", ")) at "
                        + "\(place.isEmpty ? "the top level" : place); known keys there: "
                        + known.keys.sorted().joined(separator: ", "))
            }
            for (key, value) in entries {
                try check(value, against: known[key] ?? .value, at: place.isEmpty ? key : place + "." + key)
            }
        case (.sequence(let entry), .sequence(let items)):
            for (index, item) in items.enumerated() {
                var name = "\(place)[\(index)]"
                if case .mapping(let entries) = item,
                    let id = entries.first(where: { $0.key == "bundle_id" || $0.key == "product_id" }),
                    case .scalar(let text?) = id.value
                {
                    name += " (\(text))"
                }
                try check(item, against: entry, at: name)
            }
        default:
            // A value of another shape than the place expects is the decoders' to refuse, with their message.
            return
        }
    }

    /// A catalog file's shape: mappings with their keys, sequences, scalars.
    enum Node: Decodable {
        /// The stores' sections given in each app, by bundle id then section key: each a section's scalar values by
        /// key (`keys`: the sections' keys).
        func storeSections(keys: Set<String>) throws(CatalogFileError) -> [String: [String: [String: String]]] {
            guard case .mapping(let top) = self, let apps = top.first(where: { $0.key == "apps" })?.value,
                case .sequence(let items) = apps
            else { return [:] }
            var result: [String: [String: [String: String]]] = [:]
            for case .mapping(let entries) in items {
                guard case .scalar(let bundleID?)? = entries.first(where: { $0.key == "bundle_id" })?.value else {
                    continue
                }
                for (key, value) in entries where keys.contains(key) {
                    if case .scalar(nil) = value { continue }  // `stripe:` with nothing under it: no section
                    guard case .mapping(let fields) = value else {
                        throw CatalogFileError("\(key) of \(bundleID) must be a mapping of its settings")
                    }
                    var values: [String: String] = [:]
                    for case (let name, .scalar(let text?)) in fields { values[name] = text }
                    result[bundleID, default: [:]][key] = values
                }
            }
            return result
        }

        case mapping([(key: String, value: Node)])
        case sequence([Node])
        case scalar(String?)

        private struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            if let container = try? decoder.container(keyedBy: AnyKey.self) {
                self = .mapping(
                    container.allKeys.map { key in
                        (key.stringValue, (try? container.decode(Node.self, forKey: key)) ?? .scalar(nil))
                    })
            } else if var container = try? decoder.unkeyedContainer() {
                var items: [Node] = []
                while !container.isAtEnd {
                    guard let item = try? container.decode(Node.self) else { break }
                    items.append(item)
                }
                self = .sequence(items)
            } else {
                self = .scalar(try? decoder.singleValueContainer().decode(String.self))
            }
        }
    }
}
