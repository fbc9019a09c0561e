import AppStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import Testing
import Yams

@testable import AppStoreStore
@testable import SubLedgerHTTP
@testable import SubLedgerUseCases

/// `openapi.yaml` describes exactly the routes the router registers, and the service serves it.
@Suite struct OpenAPITests {
    /// A route as `METHOD /path/{parameter}`.
    struct Route: Hashable, Comparable, CustomStringConvertible {
        var method: String
        var path: String
        var description: String { "\(method) \(path)" }
        static func < (lhs: Route, rhs: Route) -> Bool { lhs.description < rhs.description }
    }

    /// The document's operations, with whether each one requires the API key.
    static func documentedOperations() throws -> [Route: Bool] {
        let document = try #require(try Yams.load(yaml: OpenAPIDocument.text) as? [String: Any])
        #expect((document["openapi"] as? String)?.hasPrefix("3.1") == true)
        let globalSecurity = (document["security"] as? [Any])?.isEmpty == false
        let paths = try #require(document["paths"] as? [String: Any])
        let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
        var operations: [Route: Bool] = [:]
        for (path, item) in paths {
            for (method, operation) in try #require(item as? [String: Any]) where methods.contains(method) {
                let security = (operation as? [String: Any])?["security"] as? [Any]
                operations[Route(method: method.uppercased(), path: path)] =
                    security.map { !$0.isEmpty } ?? globalSecurity
            }
        }
        return operations
    }

    /// The routes `buildRouter` registers, path parameters written the OpenAPI way (`:id` → `{id}`).
    static func registeredRoutes() throws -> Set<Route> {
        let logger = Logger(label: "openapi-test")
        // The pool opens connections lazily: building the router touches no database.
        let pool = PostgresPool(configuration: try PostgresConfiguration(connectionString: "postgresql:///unused"))
        let apple = try AppleGateway(configuration: AppleConfiguration(), logger: logger)
        var dependencies = ServiceDependencies(
            pool: pool, migrator: try Migrator.bundled(logger: logger), apple: apple, now: { Instant.systemNow() })
        // Every store module, as `serve` registers them: their push and checkout routes come from their
        // registrations.
        dependencies.stores = StoreRegistry(apple: apple, EveryStore.besideTheAppStore)
        let router = buildRouter(
            dependencies: dependencies, useCases: dependencies.useCases(secretKeys: SecretKeyring(), logger: logger),
            logger: logger, traced: false)
        return Set(
            router.routes.map { route in
                let path =
                    "/"
                    + route.path.description.split(separator: "/").map { component in
                        component.hasPrefix(":") ? "{\(component.dropFirst())}" : String(component)
                    }.joined(separator: "/")
                return Route(method: route.method.rawValue, path: path)
            })
    }

    @Test func everyRegisteredRouteIsDocumentedAndEveryDocumentedRouteIsRegistered() throws {
        let registered = try Self.registeredRoutes()
        let documented = Set(try Self.documentedOperations().keys)
        #expect(registered.count >= 11, "the router lists its routes")
        let undocumented = registered.subtracting(documented).sorted()
        let missing = documented.subtracting(registered).sorted()
        #expect(undocumented.isEmpty, "routes missing from openapi.yaml: \(undocumented)")
        #expect(missing.isEmpty, "openapi.yaml documents routes the router does not have: \(missing)")
    }

    /// `Transaction.source` lists every source a transaction the server answers with can have.
    @Test func transactionSourcesAreEveryTransactionSource() throws {
        let document = try #require(try Yams.load(yaml: OpenAPIDocument.text) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let transaction = try #require(schemas["Transaction"] as? [String: Any])
        let source = try #require((transaction["properties"] as? [String: Any])?["source"] as? [String: Any])
        let documented = try #require(source["enum"] as? [String])
        #expect(Set(documented) == Set(TransactionSource.allCases.map(\.rawValue)))
    }

    @Test func documentedPathParametersAreDeclared() throws {
        let document = try #require(try Yams.load(yaml: OpenAPIDocument.text) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        let components = try #require(document["components"] as? [String: Any])
        let sharedParameters = components["parameters"] as? [String: Any] ?? [:]
        for (path, item) in paths {
            let templated = Set(
                path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) })
            for (method, operation) in try #require(item as? [String: Any]) {
                let parameters = ((operation as? [String: Any])?["parameters"] as? [[String: Any]] ?? []).map {
                    parameter in
                    if let reference = parameter["$ref"] as? String {
                        return sharedParameters[String(reference.split(separator: "/").last ?? "")] as? [String: Any]
                            ?? [:]
                    }
                    return parameter
                }
                let declared = Set(
                    parameters.filter { $0["in"] as? String == "path" }.compactMap { $0["name"] as? String })
                #expect(declared == templated, "\(method.uppercased()) \(path) declares path parameters \(declared)")
            }
        }
    }

    /// Each operation documents exactly the query parameters its route takes (`RouteQueryParameters`, the table the
    /// service refuses any other parameter by, 400 `unknown_parameter`).
    @Test func documentedQueryParametersAreTheOnesEachRouteTakes() throws {
        let document = try #require(try Yams.load(yaml: OpenAPIDocument.text) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        let components = try #require(document["components"] as? [String: Any])
        let sharedParameters = components["parameters"] as? [String: Any] ?? [:]
        let methods: Set<String> = ["get", "post", "put", "patch", "delete"]
        for (path, item) in paths {
            for (method, operation) in try #require(item as? [String: Any]) where methods.contains(method) {
                let parameters = ((operation as? [String: Any])?["parameters"] as? [[String: Any]] ?? []).map {
                    parameter in
                    if let reference = parameter["$ref"] as? String {
                        return sharedParameters[String(reference.split(separator: "/").last ?? "")] as? [String: Any]
                            ?? [:]
                    }
                    return parameter
                }
                let documented = Set(
                    parameters.filter { $0["in"] as? String == "query" }.compactMap { $0["name"] as? String })
                let taken = RouteQueryParameters.allowed(HTTPRequest.Method(rawValue: method.uppercased())!, path)
                #expect(documented == taken, "\(method.uppercased()) \(path) documents \(documented.sorted())")
            }
        }
    }

    /// The document's `security` matches what the service does: documented-secured routes answer 401 without
    /// a key, the others do not.
    @Test func documentedSecurityMatchesTheService() async throws {
        let operations = try Self.documentedOperations()
        try await ServiceHarness.run(stores: EveryStore.besideTheAppStore) { _, client in
            for (route, secured) in operations.sorted(by: { $0.key < $1.key }) {
                // Every path parameter gets a sample value (unknown ones a generic one), so each route is reachable.
                let samples = ["account_id": "alice", "name": "summary", "id": "alice"]
                let uri = route.path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                    guard segment.hasPrefix("{"), segment.hasSuffix("}") else { return String(segment) }
                    return samples[String(segment.dropFirst().dropLast())] ?? "sample"
                }.joined(separator: "/")
                let response = try await client.call(
                    HTTPRequest.Method(route.method)!, uri, key: nil, raw: .init(string: "{}"))
                if secured {
                    #expect(response.status == .unauthorized, "\(route) is documented as needing a key")
                    #expect(response.json.errorCode == "unauthorized")
                } else if response.status == .unauthorized {
                    // Open to every caller without a key; a route that checks its caller's own signature before
                    // anything else (Stripe's webhook) refuses an unsigned body as such, never for want of a key.
                    #expect(response.json.errorCode == "invalid_signature", "\(route) is documented as open")
                } else {
                    #expect(response.status != .notFound, "\(route) is documented but not found")
                }
            }
        }
    }

    @Test func serviceServesTheDocumentAsYAML() async throws {
        try await ServiceHarness.run(stores: EveryStore.besideTheAppStore) { _, client in
            let response = try await client.executeRequest(uri: "/openapi.yaml", method: .get, headers: [:], body: nil)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/yaml") == true)
            #expect(String(buffer: response.body) == OpenAPIDocument.text)
        }
    }

    /// The document's schema for its own answer says what a client that parses the YAML gets: a mapping, not a
    /// string (a contract tester validating the parsed answer failed on `type: string`).
    @Test func theDocumentDescribesItsOwnAnswerAsTheMappingItIs() throws {
        let document = try #require(try Yams.load(yaml: OpenAPIDocument.text) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        let get = try #require((paths["/openapi.yaml"] as? [String: Any])?["get"] as? [String: Any])
        let ok = try #require((get["responses"] as? [String: Any])?["200"] as? [String: Any])
        let yaml = try #require((ok["content"] as? [String: Any])?["application/yaml"] as? [String: Any])
        #expect((yaml["schema"] as? [String: Any])?["type"] as? String == "object")
    }

    /// A purchase token's documented pattern is the service's rule (a contract tester sent `Þ÷`, which the document
    /// allowed and the lookup refused): the pattern admits what the rule admits and refuses what it refuses.
    @Test func purchaseTokensAreDocumentedWithTheServicesRule() throws {
        let document = try #require(try Yams.load(yaml: OpenAPIDocument.text) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        let lookup = try #require(
            (paths["/v1/admin/lookup/purchase-token/{id}"] as? [String: Any])?["get"] as? [String: Any])
        let parameter = try #require(
            (lookup["parameters"] as? [[String: Any]])?.first { $0["name"] as? String == "id" })
        let pattern = try #require((parameter["schema"] as? [String: Any])?["pattern"] as? String)
        let regex = try Regex(pattern)
        for token in [
            "abc.DEF_123-x", String(repeating: "a", count: 1024), "", "Þ÷", "a b", "a/b", "a%2Fb",
            String(repeating: "a", count: 1025),
        ] {
            let documented = (try? regex.wholeMatch(in: token)) != nil
            let lookupAccepts = (try? SupportQuery.purchaseToken(parsing: token)) != nil
            let purchaseAccepts =
                (1...GooglePlayPurchasesController.maximumTokenLength).contains(token.utf8.count)
                && token.utf8.allSatisfy(GooglePlayPurchasesController.isTokenByte)
            #expect(documented == lookupAccepts, "\(token.prefix(20))")
            #expect(documented == purchaseAccepts, "\(token.prefix(20))")
        }
    }
}
