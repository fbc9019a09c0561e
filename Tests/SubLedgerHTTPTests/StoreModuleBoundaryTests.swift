import Foundation
import Testing

/// A store is a module that depends on the use cases, never the reverse: neither `SubLedgerUseCases` nor
/// `SubLedgerHTTP` may depend on a store's modules in Package.swift or import one in its sources. Every store is behind
/// its registration: the list of known exceptions is empty, and the test fails when one is added back unused.
@Suite struct StoreModuleBoundaryTests {
    static let repository = ErrorCodeCatalogTests.repository

    /// Every store's modules, read from Package.swift: each store is named by its clients' target (`<Name>Clients`),
    /// and its modules are its wire values (`<Name>`), its clients and the store module holding its adapters
    /// (`<Name>Store`), so a store added to the package is held to the rule without this test changing.
    static let storeModules: Set<String> = Set(storeNames.flatMap { [$0, $0 + "Clients", $0 + "Store"] })

    /// The stores' names, one per `<Name>Clients` target that has its `<Name>Store` beside it.
    static let storeNames: [String] = {
        let names = (try? targetNames()) ?? []
        return names.filter { $0.hasSuffix("Clients") }.map { String($0.dropLast("Clients".count)) }
            .filter { names.contains($0) && names.contains($0 + "Store") }.sorted()
    }()

    /// The store modules that hold a store's adapters behind its registration (`<Name>Store`).
    static let registeringModules = storeNames.map { $0 + "Store" }

    /// Every target Package.swift declares.
    static func targetNames() throws -> Set<String> {
        let manifest = try String(
            contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = try Regex(#"\.(?:target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)""#)
        return Set(manifest.matches(of: declaration).compactMap { $0.output[1].substring.map(String.init) })
    }

    /// The store modules a target may still reach: none.
    static let knownExceptions: [String: Set<String>] = [:]

    /// The target names `target` declares as dependencies in Package.swift (products left out).
    static func declaredDependencies(of target: String) throws -> Set<String> {
        let manifest = try String(
            contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = try Regex(#"\.(?:target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)""#)
        let declarations = manifest.matches(of: declaration)
        guard let at = declarations.firstIndex(where: { $0.output[1].substring == target[...] }) else { return [] }
        let end = at + 1 < declarations.count ? declarations[at + 1].range.lowerBound : manifest.endIndex
        let rest = manifest[declarations[at].range.upperBound..<end]
        guard let open = rest.range(of: "dependencies: [") else { return [] }
        var depth = 1
        var index = open.upperBound
        while depth > 0, index < rest.endIndex {
            if rest[index] == "[" { depth += 1 }
            if rest[index] == "]" { depth -= 1 }
            index = rest.index(after: index)
        }
        var block = String(rest[open.upperBound..<index])
        block = block.replacing(try Regex(#"\.product\([^)]*\)"#), with: "")
        block = block.replacing(try Regex(#"//[^\n]*"#), with: "")
        return Set(block.matches(of: try Regex(#""([^"]+)""#)).compactMap { $0.output[1].substring.map(String.init) })
    }

    /// The modules the `.swift` files under `Sources/<target>` import.
    static func imports(of target: String) throws -> Set<String> {
        let root = repository.appendingPathComponent("Sources/\(target)")
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            return []
        }
        let pattern = try Regex(
            #"^(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)"#
        )
        .anchorsMatchLineEndings()
        var found: Set<String> = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let module = match.output[1].substring { found.insert(String(module)) }
            }
        }
        return found
    }

    @Test(arguments: ["SubLedgerUseCases", "SubLedgerHTTP"])
    func noStoreModuleBeneathTheUseCasesOrTheEdge(target: String) throws {
        let declared = try Self.declaredDependencies(of: target)
        let imported = try Self.imports(of: target)
        #expect(!declared.isEmpty, "Package.swift declares no dependencies for \(target): the test reads it wrongly")
        #expect(!imported.isEmpty, "no imports found under Sources/\(target)")
        let allowed = Self.knownExceptions[target] ?? []
        let reached = (declared.union(imported)).intersection(Self.storeModules)
        #expect(
            reached.subtracting(allowed).isEmpty,
            "\(target) depends on store modules \(reached.subtracting(allowed).sorted()); reach a store through StoreRegistration"
        )
        // What is left to move; an exception no longer reached is taken off the list.
        #expect(
            allowed.subtracting(reached).isEmpty,
            "\(target) no longer reaches \(allowed.subtracting(reached).sorted()): take them off knownExceptions")
    }

    /// Each store module sits on the use cases, and only the composition root names it.
    /// The modules are read from Package.swift: every store's, and at least the three first stores'.
    @Test func everyStoresModulesAreFound() {
        #expect(Self.storeModules.isSuperset(of: ["AppStore", "AppStoreClients", "AppStoreStore", "GooglePlayStore"]))
        #expect(Self.storeModules.isSuperset(of: ["Stripe", "StripeClients", "StripeStore"]))
        #expect(!Self.storeModules.contains("SubLedgerStore"))
    }

    @Test(arguments: registeringModules)
    func onlyTheCompositionRootNamesAStoreModule(module: String) throws {
        #expect(try Self.declaredDependencies(of: module).contains("SubLedgerUseCases"))
        let targets = try FileManager.default.contentsOfDirectory(
            atPath: Self.repository.appendingPathComponent("Sources").path)
        var naming: [String] = []
        for target in targets.sorted() where target != module {
            if try Self.declaredDependencies(of: target).contains(module) || Self.imports(of: target).contains(module) {
                naming.append(target)
            }
        }
        #expect(naming == ["SubLedgerCommands"])
    }
}
