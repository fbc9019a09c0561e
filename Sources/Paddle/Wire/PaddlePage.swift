import Foundation
import SubLedgerCore

/// One page of a Paddle list: `{"data": [...], "meta": {"pagination": {"per_page", "next", "has_more",
/// "estimated_total"}}}`, ordered by id. The next page is the one `after` the cursor `next` names.
public struct PaddlePage<Element: Decodable & Sendable>: Decodable, Sendable {
    public var data: [Element]
    public var hasMore: Bool
    /// The `after` of the next page, read from `meta.pagination.next`; `nil` when it names none.
    public var nextAfter: String?
    public var estimatedTotal: Int?

    public init(data: [Element], hasMore: Bool, nextAfter: String? = nil, estimatedTotal: Int? = nil) {
        self.data = data
        self.hasMore = hasMore
        self.nextAfter = nextAfter
        self.estimatedTotal = estimatedTotal
    }

    enum CodingKeys: String, CodingKey {
        case data, meta
    }

    struct Meta: Decodable {
        var pagination: Pagination?
    }

    struct Pagination: Decodable {
        var next: String?
        var hasMore: Bool?
        var estimatedTotal: Int?

        enum CodingKeys: String, CodingKey {
            case next
            case hasMore = "has_more"
            case estimatedTotal = "estimated_total"
        }

        /// Read leniently: a page is its data; an odd cursor or count only ends the walk.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            next = (try? container.decodeIfPresent(String.self, forKey: .next)) ?? nil
            hasMore = (try? container.decodeIfPresent(Bool.self, forKey: .hasMore)) ?? nil
            estimatedTotal = (try? container.decodeIfPresent(Int.self, forKey: .estimatedTotal)) ?? nil
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        data = try container.decode([Element].self, forKey: .data)
        let pagination = try container.decodeIfPresent(Meta.self, forKey: .meta)?.pagination
        hasMore = pagination?.hasMore ?? false
        estimatedTotal = pagination?.estimatedTotal
        nextAfter = pagination?.next.flatMap(Self.after(inNext:))
    }

    /// The `after` parameter of a `next` URL, when it is an id; the URL itself is not followed (its host is
    /// Paddle's word, and SubLedger sends its key only to the base URL it was configured with).
    static func after(inNext next: String) -> String? {
        guard next.utf8.count <= 8192, let components = URLComponents(string: next) else { return nil }
        guard let after = components.queryItems?.last(where: { $0.name == "after" })?.value,
            IdentifierRule.transactionID.accepts(after)
        else { return nil }
        return after
    }
}

extension PaddlePage: Equatable where Element: Equatable {}
extension PaddlePage: Hashable where Element: Hashable {}
