/// Paddle's cursor pagination: a list is ordered by id (ids grow with creation), `after` names the last id seen,
/// `per_page` bounds the page, and `meta.pagination` says `{per_page, next, has_more, estimated_total}` where
/// `next` is the full URL of the following page.
public struct PaddlePagination: Sendable, Equatable {
    public var after: String?
    public var perPage: Int

    /// Paddle's default and largest page sizes for most lists.
    public static let defaultPerPage = 50
    public static let maximumPerPage = 200

    public init(after: String? = nil, perPage: Int = PaddlePagination.defaultPerPage) {
        self.after = after
        self.perPage = perPage
    }

    /// Reads `after` and `per_page` from a query's parameters, refusing a size out of 1...200 or an unreadable
    /// cursor as Paddle does.
    public static func read(_ query: [String: String]) throws(PaddleFailure) -> PaddlePagination {
        var page = PaddlePagination()
        if let text = query["per_page"] {
            guard text.count <= 6, let size = Int(text), (1...maximumPerPage).contains(size) else {
                throw .invalidField("per_page", "must be between 1 and \(maximumPerPage)")
            }
            page.perPage = size
        }
        if let after = query["after"], !after.isEmpty {
            guard after.count <= 64, after.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
            else { throw .invalidField("after", "is not a valid id") }
            page.after = after
        }
        return page
    }

    /// One page of `ids` (ascending), whether more follow, and the cursor of the next page.
    public func page(of ids: [String]) -> (ids: [String], hasMore: Bool, nextAfter: String?) {
        let start: Int
        if let after {
            start = ids.firstIndex(where: { $0 > after }) ?? ids.count
        } else {
            start = 0
        }
        let end = min(ids.count, start + perPage)
        let slice = Array(ids[start..<end])
        let hasMore = end < ids.count
        return (slice, hasMore, slice.last ?? after)
    }
}
