import ArgumentParser
import Foundation
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerUseCases

/// `subledger webhooks add|list|rotate-secret|pause|resume|remove|test|deliveries|replay|listen`: where an app's
/// events go, and a local receiver for development. See docs/guides/webhooks.md.
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Manage webhook endpoints, and receive events locally (listen). See docs/guides/webhooks.md.",
        discussion: """
            subledger webhooks add --app ID --url URL [--type T ...] [--environment E ...] [--allow-private-network]
            subledger webhooks list [--app ID] [--include-removed]
            subledger webhooks rotate-secret ENDPOINT [--expire-previous-after 24h]
            subledger webhooks pause|resume|remove|test ENDPOINT
            subledger webhooks deliveries ENDPOINT [--state pending|delivered|failed] [--limit N]
            subledger webhooks replay ENDPOINT --since T [--until T] [--type T ...]
            subledger webhooks listen --port N (--secret S | --endpoint ENDPOINT) [--json]
            A secret is shown once, by add and rotate-secret.
            """,
        subcommands: [
            Add.self, List.self, RotateSecret.self, Pause.self, Resume.self, Remove.self, Test.self, Deliveries.self,
            Replay.self, Listen.self,
        ])

    /// Table or JSON.
    struct Output: ParsableArguments {
        @Option(help: "table or json.")
        var format: String = "table"

        func validate() throws {
            guard ["table", "json"].contains(format) else {
                throw ValidationError("unknown format '\(format)': use table or json")
            }
        }

        var isJSON: Bool { format == "json" }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an endpoint for an app; prints its signing secret, once.")

        @Option(help: "The app (bundle id) whose events go there.") var app: String
        @Option(help: "The receiver's URL: https, or http to a loopback host for development.") var url: String
        @Option(help: "A note to tell endpoints apart (at most 500 characters).") var description: String?
        @Option(
            name: .customLong("type"), help: "Only this event type (repeat, or separate with commas). Default: all.")
        var types: [String] = []
        @Option(
            name: .customLong("environment"), help: "Only this environment (Production, Sandbox, ...). Default: all.")
        var environments: [String] = []
        @Flag(help: "Allow a private, loopback or link-local address (a receiver inside your network).")
        var allowPrivateNetwork = false
        @OptionGroup var output: Output
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let added = try await withWebhookAdmin(database) { admin in
                try await admin.add(
                    bundleID: app, url: url, description: description, eventTypes: types, environments: environments,
                    allowPrivateNetwork: allowPrivateNetwork)
            }
            if output.isJSON {
                printOutput(try webhooksJSON(added))
            } else {
                printOutput(endpointTable([added.endpoint]), terminator: "")
                printOutput("secret: \(added.secret)")
            }
            secretReminder()
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List endpoints (never their secrets).")
        @Option(help: "Only this app (bundle id).") var app: String?
        @Flag(help: "Include removed endpoints.") var includeRemoved = false
        @OptionGroup var output: Output
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let endpoints = try await withWebhookAdmin(database) { admin in
                try await admin.list(bundleID: app, includingRemoved: includeRemoved)
            }
            printOutput(
                output.isJSON ? try webhooksJSON(["endpoints": endpoints]) : endpointTable(endpoints),
                terminator: output.isJSON ? "\n" : "")
        }
    }

    struct RotateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-secret",
            abstract: "Give an endpoint a new secret (printed once); the previous one keeps signing for a while.")
        @Argument(help: "The endpoint id (from `webhooks list`).") var endpoint: String
        @Option(help: "How long the previous secret keeps signing: 24h (default), 30m, 7d, or 0 to stop it now.")
        var expirePreviousAfter: String?
        @OptionGroup var output: Output
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let rotated = try await withWebhookAdmin(database) { admin in
                try await admin.rotateSecret(endpoint, expirePreviousAfter: expirePreviousAfter)
            }
            if output.isJSON {
                printOutput(try webhooksJSON(rotated))
            } else {
                printOutput("secret: \(rotated.secret)")
                printOutput(
                    "previous secret valid until: \(rotated.endpoint.previousSecretExpiresAt ?? "no longer valid")")
            }
            secretReminder()
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pause an endpoint; its deliveries wait.")
        @Argument(help: "The endpoint id.") var endpoint: String
        @OptionGroup var output: Output
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let changed = try await withWebhookAdmin(database) { admin in try await admin.pause(endpoint) }
            printOutput(
                output.isJSON ? try webhooksJSON(changed) : endpointTable([changed]),
                terminator: output.isJSON ? "\n" : "")
        }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resume a paused (or failing) endpoint; its backlog is delivered.")
        @Argument(help: "The endpoint id.") var endpoint: String
        @OptionGroup var output: Output
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let changed = try await withWebhookAdmin(database) { admin in try await admin.resume(endpoint) }
            printOutput(
                output.isJSON ? try webhooksJSON(changed) : endpointTable([changed]),
                terminator: output.isJSON ? "\n" : "")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an endpoint: nothing more is sent to it; its delivery history stays.")
        @Argument(help: "The endpoint id.") var endpoint: String
        @OptionGroup var output: Output
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let changed = try await withWebhookAdmin(database) { admin in try await admin.remove(endpoint) }
            printOutput(
                output.isJSON ? try webhooksJSON(changed) : endpointTable([changed]),
                terminator: output.isJSON ? "\n" : "")
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a webhook.test event to one endpoint (delivered by a running serve or poll).")
        @Argument(help: "The endpoint id.") var endpoint: String
        @OptionGroup var output: Output
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let queued = try await withWebhookAdmin(database) { admin in try await admin.test(endpoint) }
            printOutput(
                output.isJSON
                    ? try webhooksJSON(queued)
                    : "queued webhook.test event \(queued.eventID) (delivery \(queued.deliveryID))")
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "An endpoint's recent deliveries and their attempts, newest first.")
        @Argument(help: "The endpoint id.") var endpoint: String
        @Option(help: "Only pending, delivered or failed ones.") var state: String?
        @Option(help: "Most deliveries (default 50, at most 1000).") var limit: Int?
        @OptionGroup var output: Output
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let deliveries = try await withWebhookAdmin(database) { admin in
                try await admin.deliveries(endpoint, state: state, limit: limit)
            }
            if output.isJSON {
                printOutput(try webhooksJSON(["deliveries": deliveries]))
                return
            }
            var rows = [
                ["DELIVERY", "EVENT", "TYPE", "ACCOUNT", "ORIGIN", "STATE", "ATTEMPTS", "LAST", "NEXT / DELIVERED"]
            ]
            for delivery in deliveries {
                let last =
                    delivery.lastStatus.map(String.init) ?? delivery.lastError.map { String($0.prefix(60)) } ?? "-"
                rows.append([
                    String(delivery.deliveryID), delivery.eventID, delivery.eventType, delivery.accountID ?? "-",
                    delivery.origin, delivery.state, String(delivery.attempts), last,
                    delivery.deliveredAt ?? delivery.nextAttemptAt ?? "-",
                ])
            }
            printOutput(textTable(rows), terminator: "")
        }
    }

    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send an app's past events to an endpoint again (at most 10,000 per replay).",
            discussion: "Events written since --since (until --until), that the endpoint's filters let through.")
        @Argument(help: "The endpoint id.") var endpoint: String
        @Option(help: "From this moment (RFC 3339, or YYYY-MM-DD), inclusive.") var since: String
        @Option(help: "Until this moment, exclusive. Default: now.") var until: String?
        @Option(name: .customLong("type"), help: "Only this event type (repeat, or separate with commas).")
        var types: [String] = []
        @OptionGroup var output: Output
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let queued = try await withWebhookAdmin(database) { admin in
                try await admin.replay(endpoint, since: since, until: until, eventTypes: types)
            }
            printOutput(
                output.isJSON ? try webhooksJSON(queued) : "queued \(queued.queued) deliveries to \(queued.endpointID)")
        }
    }

    struct Listen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Receive webhooks on 127.0.0.1 and print each verified event (for development).",
            discussion: """
                Add an endpoint pointing here first, e.g.
                  subledger webhooks add --app com.example.app --url http://127.0.0.1:4242/webhooks
                then run `subledger webhooks listen --port 4242 --secret whsec_...` (or --endpoint ID, which
                reads the endpoint's secrets from the database). Requests that do not verify are answered 400
                and a warning is printed.
                """)
        @Option(help: "The port to listen on (127.0.0.1).") var port: Int
        @Option(help: "A secret to verify with (repeat during a rotation). Default: --endpoint's secrets.")
        var secret: [String] = []
        @Option(help: "Read the secrets of this endpoint from the database instead of --secret.") var endpoint: String?
        @Option(help: "Seconds a signature's timestamp may be from this clock (default 300).") var tolerance: Int64?
        @Flag(help: "Print each event's raw JSON body instead of a summary line.") var json = false
        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard (1...65535).contains(port) else { throw ValidationError("the port is between 1 and 65535") }
            guard secret.isEmpty != (endpoint == nil) else {
                throw ValidationError("give either --secret (one or more) or --endpoint ID")
            }
            if let tolerance, !(0...86_400).contains(tolerance) {
                throw ValidationError("the tolerance is between 0 and 86400 seconds")
            }
        }

        func run() async throws {
            var secrets = secret
            if let endpoint {
                let id = try WebhookAdminInput.endpointID(endpoint)
                secrets = try await withStores(database) { stores in
                    let endpoints = WebhookEndpointStore(pool: stores.pool, secretKeys: stores.secretKeys)
                    guard let secrets = try await endpoints.signingSecrets(endpointID: id, now: Instant.systemNow())
                    else {
                        throw WebhookAdminError(.unknownEndpoint, "no webhook endpoint \(id)")
                    }
                    return secrets
                }
            }
            var configuration = WebhookListener.Configuration(port: port, secrets: secrets)
            configuration.printsRawBody = json
            if let tolerance { configuration.tolerance = tolerance }
            let output = WebhookListener.Output(
                event: { line in printOutput(line) },
                warning: { line in printError("warning: \(line)") })
            try await WebhookListener.run(
                configuration: configuration, output: output,
                onListening: { port in
                    printError("listening on http://127.0.0.1:\(port)/ for signed webhooks (Ctrl-C to stop)")
                },
                logger: makeLogger("subledger.webhooks.listen", level: .warning))
        }
    }
}

/// Opens the database, runs `body` with the webhook admin over it, and closes it.
private func withWebhookAdmin<T: Sendable>(
    _ database: DatabaseOptions, _ body: (WebhookAdmin) async throws -> T
) async throws -> T {
    try await withStores(database) { stores in
        try await body(WebhookAdmin(store: WebhookEndpointStore(pool: stores.pool, secretKeys: stores.secretKeys)))
    }
}

/// `value` as the routes answer it: snake_case keys, sorted, pretty-printed.
/// Says on standard error that the secret is shown once, on a line of its own after what standard output holds:
/// standard output is buffered when it is not a terminal, so it is flushed first, or the reminder would come
/// before (or inside) the JSON where both go to one place.
private func secretReminder() {
    fflush(nil)  // every C output stream: standard output among them
    printError("the secret above is shown only now; keep it with your receiver")
}

private func webhooksJSON(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// Endpoints as a table.
private func endpointTable(_ endpoints: [WebhookEndpoint]) -> String {
    var rows = [["ENDPOINT", "APP", "URL", "STATE", "TYPES", "PENDING", "FAILED", "CREATED"]]
    for endpoint in endpoints {
        let state = endpoint.pausedReason.map { "\(endpoint.state) (\($0))" } ?? endpoint.state
        rows.append([
            endpoint.endpointID, endpoint.bundleID, endpoint.url, state,
            endpoint.eventTypes.isEmpty ? "all" : endpoint.eventTypes.joined(separator: ","),
            String(endpoint.pendingDeliveries), String(endpoint.failedDeliveries), endpoint.createdAt,
        ])
    }
    return textTable(rows)
}

/// Rows as columns padded with spaces.
private func textTable(_ rows: [[String]]) -> String {
    let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
    return rows.map { row in
        row.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
            .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }.joined(separator: "\n") + "\n"
}
