import Foundation
import SubLedgerCore
import Testing
import Yams

@testable import SubLedgerHTTP
@testable import SubLedgerUseCases

/// The event catalog is documented where users read it: one OpenAPI `webhooks` entry per event type, each
/// with a schema that exists, and a row per type in docs/guides/webhooks.md.
@Suite struct WebhookCatalogDocumentTests {
    static let types = Set(WebhookEventType.allCases.map(\.rawValue))

    @Test func openAPIListsEveryEventTypeAsAWebhookWithItsSchema() throws {
        let document = try #require(try Yams.load(yaml: OpenAPIDocument.text) as? [String: Any])
        let webhooks = try #require(document["webhooks"] as? [String: Any])
        #expect(Set(webhooks.keys) == Self.types)
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let listed = (schemas["WebhookEventType"] as? [String: Any])?["enum"] as? [String]
        #expect(Set(listed ?? []) == Self.types)
        for (type, item) in webhooks {
            let post = try #require((item as? [String: Any])?["post"] as? [String: Any], "\(type)")
            let content = (post["requestBody"] as? [String: Any])?["content"] as? [String: Any]
            let schema = (content?["application/json"] as? [String: Any])?["schema"] as? [String: Any]
            let reference = try #require(schema?["$ref"] as? String, "\(type)")
            let name = String(reference.dropFirst("#/components/schemas/".count))
            let defined = try #require(schemas[name] as? [String: Any], "\(type): \(name) is not defined")
            let parts = defined["allOf"] as? [[String: Any]] ?? []
            let constant = parts.compactMap { ($0["properties"] as? [String: Any])?["type"] as? [String: Any] }.first
            // One value, written as an enum of one (generators such as openapi-python-client drop `const` over an enum).
            #expect(constant?["enum"] as? [String] == [type], "\(type): \(String(describing: constant))")
        }
    }

    @Test func docsHaveARowPerEventType() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/guides/webhooks.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let catalog = try #require(
            text.components(separatedBy: "## Event catalog").last?.components(separatedBy: "\n## ").first)
        for type in Self.types {
            #expect(catalog.contains("| `\(type)` |"), "docs/guides/webhooks.md has no catalog row for \(type)")
        }
    }
}
