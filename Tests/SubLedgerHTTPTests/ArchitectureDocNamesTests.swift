import Foundation
import Testing

/// docs/explanation/architecture.md cites the code by name; a name it cites that the code no longer has is a doc that
/// drifted.
/// Checked: every `Type.member` (a type declared in the sources and a member declared under that name), every bare
/// `TypeName` and `Type.Nested` (each a type declared in Sources or at the top level of a file in Tests, a module: a
/// target, product or dependency that Package.swift names, or one of `notOurs`) and every `File.swift` (a file of that
/// name in Sources or Tests, or at the root).
@Suite struct ArchitectureDocNamesTests {
    static let repository = ErrorCodeCatalogTests.repository

    /// The text of every Swift file under `folders`, and their file names.
    static func swiftFiles(in folders: [String]) throws -> (texts: [String], names: Set<String>) {
        var texts: [String] = []
        var names: Set<String> = []
        for folder in folders {
            let root = repository.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let url as URL in walker where url.pathExtension == "swift" {
                texts.append(try String(contentsOf: url, encoding: .utf8))
                names.insert(url.lastPathComponent)
            }
        }
        return (texts, names)
    }

    /// The names each declaration keyword introduces, over `texts`.
    static func declared(_ keywords: String, in texts: [String]) throws -> Set<String> {
        let pattern = try Regex("\\b(?:\(keywords))\\s+`?([A-Za-z_][A-Za-z0-9_]*)")
        var names: Set<String> = []
        for text in texts {
            for match in text.matches(of: pattern) {
                if let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        return names
    }

    /// Capitalised names the doc cites that are not SubLedger's: the standard library's and Foundation's, the
    /// dependencies' (Hummingbird, AsyncHTTPClient, ServiceLifecycle), libpq's functions, Apple's environment names,
    /// an HTTP header and the words Apple and Sources.
    static let notOurs: Set<String> = [
        "Codable", "Encodable", "Sendable", "Date", "Int64", "JSONDecoder", "JSONEncoder", "Application",
        "MetricsMiddleware", "HTTPClient", "Service", "ServiceGroup", "PQconsumeInput", "PQgetResult",
        "PQsendQueryPrepared",
        "Production", "Sandbox", "Xcode", "LocalTesting", "Server", "Apple", "Sources",
    ]

    /// The types declared at the top level of `texts` (a declaration at the start of a line).
    static func topLevelTypes(in texts: [String]) throws -> Set<String> {
        let pattern = try Regex(
            "(?m)^(?:@[A-Za-z]+(?:\\([^)]*\\))?\\s+)*(?:(?:public|package|internal|fileprivate|private|final)\\s+)*"
                + "(?:struct|enum|class|protocol|actor|typealias|extension)\\s+`?([A-Za-z_][A-Za-z0-9_]*)")
        var names: Set<String> = []
        for text in texts {
            for match in text.matches(of: pattern) {
                if let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        return names
    }

    /// Every name Package.swift gives in `name: "…"`: its targets, products and the dependencies' products.
    static func packageNames() throws -> Set<String> {
        let manifest = try String(
            contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        return Set(
            manifest.matches(of: try Regex("name: \"([A-Za-z0-9_-]+)\"")).compactMap {
                $0.output[1].substring.map(String.init)
            })
    }

    @Test func everyTypeMemberAndFileTheArchitectureDocCitesExists() throws {
        let doc = try String(
            contentsOf: Self.repository.appendingPathComponent("docs/explanation/architecture.md"), encoding: .utf8)
        let (texts, files) = try Self.swiftFiles(in: ["Sources", "Tests"])
        let types = try Self.declared("struct|enum|class|protocol|actor|typealias|extension", in: texts)
        let members = try Self.declared("func|var|let|case", in: texts)
        let rootFiles = Set(
            try FileManager.default.contentsOfDirectory(atPath: Self.repository.path).filter { $0.hasSuffix(".swift") })
        let memberCitation = try Regex("^([A-Z][A-Za-z0-9]*)\\.([a-z][A-Za-z0-9]*)(\\(.*\\))?$")
        let fileCitation = try Regex("^([A-Za-z0-9+_-]+\\.swift)$")
        // A bare type or module name (`ReportProjector`, `SubLedgerCore`) or a nested type (`HTTPExchange.Failure`):
        // capitalised words with a lower-case letter, so that SQL, headers and constants (`DATABASE_URL`) are not.
        let typeCitation = try Regex("^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*(\\.[A-Z][A-Za-z0-9]*)*$")
        let (sourceTexts, _) = try Self.swiftFiles(in: ["Sources"])
        let (testTexts, _) = try Self.swiftFiles(in: ["Tests"])
        let typeNames = try Self.declared("struct|enum|class|protocol|actor|typealias", in: sourceTexts)
            .union(try Self.topLevelTypes(in: testTexts)).union(try Self.packageNames()).union(Self.notOurs)
        var cited = 0
        var missing: [String] = []
        for match in doc.matches(of: try Regex("`([^`\\n]+)`")) {
            guard let text = match.output[1].substring.map(String.init) else { continue }
            if let file = text.wholeMatch(of: fileCitation) {
                cited += 1
                let name = file.output[1].substring.map(String.init) ?? ""
                if !files.contains(name) && !rootFiles.contains(name) { missing.append(text) }
            } else if let member = text.wholeMatch(of: memberCitation) {
                cited += 1
                let type = member.output[1].substring.map(String.init) ?? ""
                let name = member.output[2].substring.map(String.init) ?? ""
                if !types.contains(type) || !members.contains(name) { missing.append(text) }
            } else if text.wholeMatch(of: typeCitation) != nil {
                cited += 1
                let parts = text.split(separator: ".").map(String.init)
                if parts.contains(where: { !typeNames.contains($0) }) { missing.append(text) }
            }
        }
        #expect(missing.isEmpty, "docs/explanation/architecture.md cites names the code does not have: \(missing)")
        #expect(cited > 50, "docs/explanation/architecture.md's citations were not read")
    }
}
