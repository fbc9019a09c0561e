import Testing

@testable import PaddleSimulator

@Suite struct PaddlePaginationTests {
    let ids = ["ctm_01a", "ctm_01b", "ctm_01c", "ctm_01d", "ctm_01e"]

    @Test func pagesFollowTheCursorUntilNoneAreLeft() {
        var pages: [[String]] = []
        var cursor: String?
        while true {
            let page = PaddlePagination(after: cursor, perPage: 2).page(of: ids)
            pages.append(page.ids)
            cursor = page.nextAfter
            if !page.hasMore { break }
        }
        #expect(pages == [["ctm_01a", "ctm_01b"], ["ctm_01c", "ctm_01d"], ["ctm_01e"]])
    }

    @Test func aCursorPastTheEndGivesAnEmptyLastPage() {
        let page = PaddlePagination(after: "ctm_01z", perPage: 2).page(of: ids)
        #expect(page.ids.isEmpty && !page.hasMore)
    }

    @Test func readsPerPageAndAfterAndRefusesWhatPaddleRefuses() throws {
        #expect(try PaddlePagination.read([:]) == PaddlePagination(after: nil, perPage: 50))
        #expect(
            try PaddlePagination.read(["per_page": "200", "after": "ctm_01b"])
                == PaddlePagination(after: "ctm_01b", perPage: 200))
        for query in [
            ["per_page": "0"], ["per_page": "201"], ["per_page": "-1"], ["per_page": "99999999999999999999"],
            ["after": "ctm_01'; drop"], ["after": String(repeating: "a", count: 65)],
        ] {
            #expect(throws: PaddleFailure.self) { try PaddlePagination.read(query) }
        }
    }
}
