import HTTPTypes
import NIOHTTP1
import Testing

@testable import SubLedgerHTTP

/// How `ParserErrorAnswer` tells an over-long request line (414) from over-long headers (431) when the parser
/// reports a header overflow: from the bytes as the socket delivered them, in reads of any size. A line's first
/// bytes are kept only when it is long or goes on past a read, so each way a line can fall across reads is here.
@Suite struct ParserErrorAnswerLineTests {
    static let longPath = "/" + String(repeating: "a", count: 9 * 1024)
    static let longHeader = "X-Large: " + String(repeating: "b", count: 9 * 1024) + "\r\n"

    /// The status the answer to a header overflow has after `bytes` arrived in reads of `readSize` bytes.
    static func overflowStatus(after bytes: String, readSize: Int) -> HTTPResponse.Status {
        let answer = ParserErrorAnswer()
        let all = Array(bytes.utf8)
        var start = 0
        while start < all.count {
            let end = min(start + readSize, all.count)
            all[start..<end].withUnsafeBytes { answer.observe($0) }
            start = end
        }
        return answer.refusal(for: .headerOverflow).status
    }

    static let readSizes = [1, 7, 16, 17, 1000, 9 * 1024 + 3, 1 << 20]

    @Test(arguments: readSizes)
    func aLongRequestLineIsATargetTooLong(readSize: Int) {
        let request = "GET \(Self.longPath) HTTP/1.1\r\nHost: localhost\r\n"
        #expect(Self.overflowStatus(after: request, readSize: readSize) == .uriTooLong)
        // Still being read when the parser gives up.
        #expect(Self.overflowStatus(after: "GET \(Self.longPath)", readSize: readSize) == .uriTooLong)
    }

    @Test(arguments: readSizes)
    func aLongHeaderLineIsHeadersTooLarge(readSize: Int) {
        let request = "GET /health/live HTTP/1.1\r\nHost: localhost\r\n\(Self.longHeader)"
        #expect(Self.overflowStatus(after: request, readSize: readSize) == .requestHeaderFieldsTooLarge)
        // Still being read when the parser gives up.
        #expect(
            Self.overflowStatus(after: "GET /health/live HTTP/1.1\r\nX-Large: \(Self.longPath)", readSize: readSize)
                == .requestHeaderFieldsTooLarge)
    }

    /// The first long line decides: a long request line followed by a long header is still the target.
    @Test(arguments: readSizes)
    func theFirstLongLineDecides(readSize: Int) {
        let request = "GET \(Self.longPath) HTTP/1.1\r\n\(Self.longHeader)"
        #expect(Self.overflowStatus(after: request, readSize: readSize) == .uriTooLong)
    }

    /// Short lines leave nothing behind: many headers together too large are headers too large.
    @Test(arguments: readSizes)
    func manyShortLinesAreHeadersTooLarge(readSize: Int) {
        let headers = (0..<2000).map { "X-Header-\($0): value\r\n" }.joined()
        let request = "GET \(Self.longPath.prefix(100)) HTTP/1.1\r\n" + headers
        #expect(Self.overflowStatus(after: request, readSize: readSize) == .requestHeaderFieldsTooLarge)
    }
}
