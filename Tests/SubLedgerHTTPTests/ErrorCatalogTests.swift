import Foundation
import Testing

@testable import SubLedgerHTTP

/// docs/reference/errors.md's tables of HTTP answers (those with a Status column) list exactly the codes the API can
/// answer with, read from the code itself (`ErrorCatalog`: the HTTP layer's `APIError.Code` and the `Code`s of
/// every typed error `ErrorMiddleware` maps), not from its text. `ErrorCodeCatalogTests` holds the rest of the
/// documentation (the commands' codes, prose) against the sources' text.
@Suite struct ErrorCatalogTests {
    /// The codes named in the first column of every table of docs/reference/errors.md whose header has a `Status`
    /// column.
    static func documentedAnswerCodes() throws -> Set<String> {
        let url = ErrorCodeCatalogTests.repository.appendingPathComponent("docs/reference/errors.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        let code = try Regex("`([a-z][a-z0-9_]*)`")
        var codes = Set<String>()
        var header: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("|") else {
                header = nil
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard let columns = header else {
                header = cells
                continue
            }
            guard columns.contains("Status"), let first = cells.first, !first.allSatisfy({ "-: ".contains($0) })
            else { continue }
            for match in first.matches(of: code) {
                if let name = match.output[1].substring { codes.insert(String(name)) }
            }
        }
        return codes
    }

    @Test func everyCodeTheAPICanAnswerIsDocumented() throws {
        let documented = try Self.documentedAnswerCodes()
        #expect(documented.count > 80, "docs/reference/errors.md's tables were not read")
        for (source, codes) in ErrorCatalog.sources {
            for code in codes where !documented.contains(code) {
                Issue.record(
                    "\(source) can answer `\(code)`, and docs/reference/errors.md's tables with a status do not list it"
                )
            }
        }
    }

    @Test func everyDocumentedAnswerCodeIsOneTheAPICanAnswer() throws {
        let answerable = ErrorCatalog.codes
        #expect(answerable.contains("method_not_allowed") && answerable.contains("app_transaction_not_found"))
        for code in try Self.documentedAnswerCodes().sorted() where !answerable.contains(code) {
            Issue.record("docs/reference/errors.md lists `\(code)` with a status, and no error the API answers has it")
        }
    }

    /// Every code of the HTTP layer has the shape of a code, and the registry names each source once.
    @Test func theCatalogsCodesAreSnakeCase() throws {
        let shape = try Regex("^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
        for (source, codes) in ErrorCatalog.sources {
            for code in codes {
                #expect(code.wholeMatch(of: shape) != nil, "\(source): \(code)")
            }
        }
        let sources = ErrorCatalog.sources.map(\.source)
        #expect(Set(sources).count == sources.count)
    }
}
