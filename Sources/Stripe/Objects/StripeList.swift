/// One page of a Stripe list (`"object": "list"`): its items, newest first, and whether more follow.
public struct StripeList<Element: Decodable & Sendable>: Decodable, Sendable {
    public var data: [Element]
    public var hasMore: Bool

    public init(data: [Element], hasMore: Bool) {
        self.data = data
        self.hasMore = hasMore
    }

    enum CodingKeys: String, CodingKey {
        case data
        case hasMore = "has_more"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        data = try container.decode([Element].self, forKey: .data)
        hasMore = try container.decodeIfPresent(Bool.self, forKey: .hasMore) ?? false
    }
}

/// An expandable reference: Stripe sends the id, or the whole object when the request expanded it.
public struct StripeReference: Decodable, Sendable, Hashable {
    public var id: String

    public init(_ id: String) { self.id = id }

    private struct Object: Decodable { var id: String }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let id = try? container.decode(String.self) {
            self.id = id
        } else {
            self.id = try container.decode(Object.self).id
        }
    }
}

extension StripeList: Equatable where Element: Equatable {}
extension StripeList: Hashable where Element: Hashable {}
