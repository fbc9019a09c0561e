import AppStore
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import AppStoreStore
@testable import SubLedgerHTTP
@testable import SubLedgerUseCases

/// Holds the documentation's error codes against the codes the sources can emit, both ways: a documented code
/// no code path produces misleads an operator, and a code nobody documented cannot be handled on purpose.
@Suite struct ErrorCodeCatalogTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The product's sources: the simulator is a stand-in for Apple, and `AppStore` holds Apple's own wire codes,
    /// which the service translates before anyone sees them; paddle-sim answers Paddle's own codes, as Paddle does
    /// (docs/reference/paddle-sim.md), never SubLedger's.
    static func productSources() throws -> [(path: String, text: String)] {
        let sources = repository.appendingPathComponent("Sources")
        let skipped = [
            "Sources/AppStore/", "Sources/AppStoreSimulator/", "Sources/appstore-sim/", "Sources/subledger-bench/",
            "Sources/PaddleSimulator/", "Sources/paddle-sim/",
        ]
        var files: [(String, String)] = []
        let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let path = String(url.path.dropFirst(repository.path.count + 1))
            guard !skipped.contains(where: { path.hasPrefix($0) }) else { continue }
            files.append((path, try String(contentsOf: url, encoding: .utf8)))
        }
        #expect(files.count > 100, "the sources were not found under \(sources.path)")
        return files
    }

    static func captures(_ pattern: String, in text: String) throws -> [String] {
        let regex = try Regex<AnyRegexOutput>(pattern)
        return text.matches(of: regex).compactMap { match in
            (1..<match.output.count).lazy.compactMap { match.output[$0].substring.map(String.init) }.first
        }
    }

    static var codeShape: Regex<AnyRegexOutput> { try! Regex("^[a-z][a-z0-9]*(_[a-z0-9]+)*$") }
    static var snakeCase: Regex<AnyRegexOutput> { try! Regex("^[a-z][a-z0-9]*(_[a-z0-9]+)+$") }

    /// Every code the sources can emit: the literal codes of `APIError`s and import rows, the codes of the
    /// error types' `Code`s, and the snake_case literals of the files that declare an error type.
    static func emittedCodes() throws -> [String: Set<String>] {
        var codes: [String: Set<String>] = [:]
        for (path, text) in try productSources() {
            var found = Set<String>()
            for pattern in [
                #"code: "([^"\\]*)""#,
                #"\.(?:badRequest|notFound|unprocessable|unavailable)\(\s*"([^"\\]*)""#,
                #"Code\((?:rawValue: )?"([^"\\]*)""#,
            ] {
                found.formUnion(try captures(pattern, in: text).filter { $0.wholeMatch(of: codeShape) != nil })
            }
            if path.hasSuffix("Error.swift") {
                found.formUnion(
                    try captures(#""([a-z][a-z0-9_]*)""#, in: text).filter { $0.wholeMatch(of: snakeCase) != nil })
            }
            for code in found { codes[code, default: []].insert(path) }
        }
        return codes
    }

    static func documents() throws -> [(name: String, text: String)] {
        var names = ["README.md", "openapi.yaml"]
        // Every Markdown file under docs/, its folders (guides, reference, explanation) included.
        let docs = repository.appendingPathComponent("docs")
        let paths = try FileManager.default.subpathsOfDirectory(atPath: docs.path)
        // paddle-sim's reference names Paddle's codes, which its sources (skipped above) answer, not SubLedger's.
        names += paths.filter { $0.hasSuffix(".md") && $0 != "reference/paddle-sim.md" }.sorted().map { "docs/\($0)" }
        return try names.map { ($0, try String(contentsOf: repository.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The codes the documentation names as error codes: every code of docs/reference/errors.md's tables, a snake_case
    /// name next to an HTTP error status anywhere ("409 `offer_key_unusable`", "`order_not_found` (404)"),
    /// and the examples of the error shape in openapi.yaml.
    static func documentedCodes() throws -> [String: Set<String>] {
        var codes: [String: Set<String>] = [:]
        for (name, text) in try documents() {
            var found = Set<String>()
            if name == "docs/reference/errors.md" {
                for cell in try captures(#"(?m)^\|([^|\n]*)\|"#, in: text) {
                    found.formUnion(try captures("`([a-z][a-z0-9_]*)`", in: cell))
                }
            }
            found.formUnion(
                try captures(#"\b[45][0-9][0-9]\b[^`\n|]{0,12}`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`"#, in: text))
            found.formUnion(try captures(#"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`\s*\(\s*[45][0-9][0-9]"#, in: text))
            if name == "openapi.yaml" {
                for list in try captures(#"code: \{[^}]*examples: \[([^\]]*)\]"#, in: text) {
                    found.formUnion(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                }
            }
            for code in found { codes[code, default: []].insert(name) }
        }
        return codes
    }

    @Test func everyDocumentedCodeIsOneTheCodeCanEmit() throws {
        let emitted = try Self.emittedCodes()
        let documented = try Self.documentedCodes()
        #expect(documented.count > 100, "docs/reference/errors.md was not read")
        for (code, places) in documented.sorted(by: { $0.key < $1.key }) where emitted[code] == nil {
            Issue.record("\(places.sorted()) name `\(code)` as an error code, and no source emits it")
        }
    }

    @Test func everyCodeTheCodeCanEmitIsDocumented() throws {
        let emitted = try Self.emittedCodes()
        #expect(emitted["transaction_id_not_found"] != nil && emitted["apple_unavailable"] != nil)
        let named = Set(try Self.documents().flatMap { try Self.captures("`([a-z][a-z0-9_]*)`", in: $0.text) })
        for (code, places) in emitted.sorted(by: { $0.key < $1.key }) where !named.contains(code) {
            Issue.record("\(places.sorted()) emit `\(code)`, and no document names it (docs/reference/errors.md)")
        }
    }

    /// A code pieced together from other text (`"server_api_\(error.code)"`) is a code no document can list.
    @Test func noCodeIsBuiltFromOtherText() throws {
        for (path, text) in try Self.productSources() {
            for built in try Self.captures(#"(code: "[^"\n]*\\\()"#, in: text) {
                Issue.record("\(path) builds a code from other text: \(built)")
            }
        }
    }

    @Test func anImportRowOfAnUnknownChainSaysTransactionIDNotFound() {
        let reason = AppStoreRowImport.reason(
            for: AppStoreServerAPIError(.transactionIDNotFound, apiErrorCode: 4_040_010, httpStatus: 404))
        #expect(reason.code == "transaction_id_not_found")
        #expect(reason.message.contains("4040010"))
        #expect(AppStoreRowImport.reason(for: AppStoreServerAPIError(.timeout)).code == "apple_unavailable")
        #expect(AppStoreRowImport.reason(for: AppStoreServerAPIError(.rateLimited)).code == "apple_rate_limited")
        #expect(
            AppStoreRowImport.reason(for: AppStoreServerAPIError(.unauthorized)).code == "apple_configuration_error")
    }

    @Test(arguments: [
        (HTTPResponse.Status.uriTooLong, "uri_too_long"),
        (.requestHeaderFieldsTooLarge, "headers_too_large"),
        (.requestTimeout, "request_timeout"),
        (.unsupportedMediaType, "request_refused"),
        (.badGateway, "internal_error"),
    ])
    func anHTTPLayerRefusalHasAFixedCode(status: HTTPResponse.Status, code: String) {
        #expect(ErrorMiddleware<BasicRequestContext>.map(HTTPError(status)).code == code)
    }
}
