import Foundation
import Testing

/// docs/explanation/architecture.md lists, in "Files outside a store's folders that name a store", every source file
/// that names a store but is not in a store's own folders, with why. The list is held to the sources: when code
/// moves behind the store port (or a new file starts naming a store), the table and its count must follow.
@Suite struct ArchitectureDocStoreFilesTests {
    static let repository = ErrorCodeCatalogTests.repository
    static let heading = "### Files outside a store's folders that name a store"

    /// The words that name a store, compared ignoring letter case (`AppleGateway`, `.appStore`, `google_play`).
    static let storeWords = ["apple", "google", "storekit", "appstore"]

    /// Whether `path` (relative to the repository) lies in a store's own folders: the store's modules, the
    /// simulators' executables, or any folder whose name begins with a store's name.
    static func isInStoreFolders(_ path: String) -> Bool {
        let folders = path.split(separator: "/").dropLast().map(String.init)
        guard folders.first == "Sources", folders.count >= 2 else { return false }
        if ["appstore-sim", "play-sim", "stripe-sim"].contains(folders[1]) { return true }
        return folders.dropFirst().contains { folder in
            ["AppStore", "GooglePlay", "Apple", "Stripe"].contains { folder.hasPrefix($0) }
        }
    }

    /// The `.swift` files under Sources, outside a store's folders, whose text names a store; sorted.
    static func filesNamingAStore() throws -> [String] {
        let sources = repository.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(atPath: sources.path) else { return [] }
        var found: [String] = []
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            let path = "Sources/" + relative
            guard !isInStoreFolders(path) else { continue }
            let text = try String(contentsOf: sources.appendingPathComponent(relative), encoding: .utf8)
            if storeWords.contains(where: { text.range(of: $0, options: .caseInsensitive) != nil }) {
                found.append(path)
            }
        }
        return found.sorted()
    }

    /// One row of the doc's table: the path patterns of its first cell (a file, or a folder ending in `/*` for
    /// every file under it), and the row's text for messages.
    struct Row {
        var patterns: [String]
        var text: String

        func covers(_ path: String) -> Bool {
            patterns.contains { pattern in
                pattern.hasSuffix("/*") ? path.hasPrefix(String(pattern.dropLast())) : path == pattern
            }
        }
    }

    /// The section's table rows and the count it states (`**N files**`).
    static func section(of doc: String) throws -> (rows: [Row], statedCount: Int?) {
        guard let start = doc.range(of: heading) else { return ([], nil) }
        let lines = doc[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        let body = lines.dropFirst().prefix { !$0.hasPrefix("#") }
        let countPattern = try Regex("\\*\\*([0-9]+) files\\*\\*")
        let patternPattern = try Regex("`([^`]+)`")
        var statedCount: Int?
        var rows: [Row] = []
        for line in body {
            if statedCount == nil, let match = line.firstMatch(of: countPattern) {
                statedCount = match.output[1].substring.flatMap { Int($0) }
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
            guard line.hasPrefix("| `"), cells.count >= 3 else { continue }
            let patterns = cells[1].matches(of: patternPattern).compactMap { $0.output[1].substring.map(String.init) }
            rows.append(Row(patterns: patterns, text: patterns.joined(separator: ", ")))
        }
        return (rows, statedCount)
    }

    @Test func everySourceFileOutsideAStoresFoldersThatNamesAStoreIsListedOnceWithWhy() throws {
        let doc = try String(
            contentsOf: Self.repository.appendingPathComponent("docs/explanation/architecture.md"), encoding: .utf8)
        let files = try Self.filesNamingAStore()
        let (rows, statedCount) = try Self.section(of: doc)
        #expect(files.count > 100, "the sources were not read")
        #expect(rows.count > 10, "docs/explanation/architecture.md has no table under \"\(Self.heading)\"")

        let notCovered = files.filter { file in !rows.contains { $0.covers(file) } }
        let coveredTwice = files.filter { file in rows.filter { $0.covers(file) }.count > 1 }
        let coveringNothing = rows.filter { row in !files.contains { row.covers($0) } }.map(\.text)
        #expect(
            notCovered.isEmpty,
            "files that name a store, outside a store's folders, in no row of the table: \(notCovered)")
        #expect(coveredTwice.isEmpty, "files in more than one row of the table: \(coveredTwice)")
        #expect(
            coveringNothing.isEmpty,
            "rows that cover no file naming a store (moved, or no longer naming one): \(coveringNothing)")
        #expect(
            statedCount == files.count,
            "the table states \(statedCount.map(String.init) ?? "no count") files; the sources have \(files.count)")
    }

    @Test func aStoresOwnFoldersAreLeftOut() {
        #expect(Self.isInStoreFolders("Sources/AppStoreClients/ServerAPIClient.swift"))
        #expect(Self.isInStoreFolders("Sources/SubLedgerHTTP/GooglePlay/PurchaseTokensController.swift"))
        #expect(Self.isInStoreFolders("Sources/play-sim/PlaySimCommand.swift"))
        #expect(!Self.isInStoreFolders("Sources/SubLedgerCommands/AppleOptions.swift"))
        #expect(!Self.isInStoreFolders("Sources/SubLedgerCore/Transactions/Store.swift"))
    }
}
