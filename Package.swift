// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "SubLedger",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "subledger", targets: ["subledger"]),
        .executable(name: "appstore-sim", targets: ["appstore-sim"]),
        .executable(name: "play-sim", targets: ["play-sim"]),
        .executable(name: "stripe-sim", targets: ["stripe-sim"]),
        .executable(name: "paddle-sim", targets: ["paddle-sim"]),
        .library(name: "StripeSimulator", targets: ["StripeSimulator"]),
        .library(name: "PaddleSimulator", targets: ["PaddleSimulator"]),
        .library(name: "GooglePlaySimulator", targets: ["GooglePlaySimulator"]),
        .library(name: "AppStoreSimulator", targets: ["AppStoreSimulator"]),
        .library(name: "PostgresLibPQ", targets: ["PostgresLibPQ"]),
        .library(name: "SubLedgerCore", targets: ["SubLedgerCore"]),
        .library(name: "AppStore", targets: ["AppStore"]),
        .library(name: "AppStoreClients", targets: ["AppStoreClients"]),
        .library(name: "GooglePlay", targets: ["GooglePlay"]),
        .library(name: "GooglePlayClients", targets: ["GooglePlayClients"]),
        .library(name: "Stripe", targets: ["Stripe"]),
        .library(name: "StripeClients", targets: ["StripeClients"]),
        .library(name: "Paddle", targets: ["Paddle"]),
        .library(name: "PaddleClients", targets: ["PaddleClients"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.10.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        // NIOHTTPTypes (already under Hummingbird): the request parts the service's own channel handler reads.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.24.0"),
        // HTTPTypes (already under Hummingbird and AsyncHTTPClient): the service names its statuses and fields.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.5.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "5.0.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        // Spans through the ecosystem's tracing API (`withSpan`); a no-op tracer unless `serve`/`poll` install one.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // The OpenTelemetry tracer and its OTLP/HTTP exporter (protobuf code already generated in the package);
        // only the OTLPHTTP trait, so gRPC is neither resolved into the build nor compiled.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        // Tests only: the customer-life simulation shrinks a failing world's steps with its property checker.
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        // libpq, the PostgreSQL C client, found through pkg-config.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // A Swift PostgreSQL client on libpq: connections, a pool off the cooperative pool, transactions.
        .target(
            name: "PostgresLibPQ",
            dependencies: [
                "CLibPQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        // One seeded generator (SplitMix64) for the simulator's identifiers and the tests' seeds. No dependencies.
        .target(
            name: "SeededRandom",
            swiftSettings: swiftSettings
        ),
        // The pure domain: transactions, chains, the ownership rule, entitlements, ledger effects. No I/O.
        .target(
            name: "SubLedgerCore",
            swiftSettings: swiftSettings
        ),
        // Apple's wire protocols as values, with no I/O: verifyReceipt and Server API bodies, outcomes and
        // errors, JWS and x509 verification, notifications, the Server API token, app receipts.
        .target(
            name: "AppStore",
            dependencies: [
                "SubLedgerCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            resources: [.copy("Resources/AppleRootCA-G3.der")],
            swiftSettings: swiftSettings
        ),
        // Google Play's wire protocols as values, with no I/O: the Android Publisher API's purchase bodies, voided
        // purchases, real-time developer notifications in their Pub/Sub envelope, the Pub/Sub push token (OIDC,
        // RS256) and its verifier, service-account keys and the OAuth2 JWT assertion, money in micros.
        .target(
            name: "GooglePlay",
            dependencies: [
                "SubLedgerCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // Stripe's wire protocols as values, with no I/O: webhook signatures and events, subscriptions, invoices,
        // their payments, refunds and disputes, money in minor units, form encoding, and their reading as the
        // ledger's transactions.
        .target(
            name: "Stripe",
            dependencies: [
                "SubLedgerCore",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // Stripe's HTTP API: the reads that rebuild a subscription, the events list, Checkout Sessions; on
        // AsyncHTTPClient.
        .target(
            name: "StripeClients",
            dependencies: [
                "Stripe", "BoundedHTTP",
                "SubLedgerCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Paddle Billing's wire protocols as values, with no I/O: the webhook signature, events and notifications,
        // transactions, subscriptions and adjustments, money as strings of minor units, and what a paid transaction
        // means to the ledger.
        .target(
            name: "Paddle",
            dependencies: [
                "SubLedgerCore",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // Paddle Billing's HTTP API: the reads of transactions, subscriptions, adjustments and the events list; on
        // AsyncHTTPClient.
        .target(
            name: "PaddleClients",
            dependencies: [
                "Paddle", "BoundedHTTP",
                "SubLedgerCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Apple's HTTP endpoints: the verifyReceipt and App Store Server API clients, on AsyncHTTPClient.
        .target(
            name: "AppStoreClients",
            dependencies: [
                "AppStore", "BoundedHTTP",
                "SubLedgerCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // One HTTP exchange bounded in time and size, on AsyncHTTPClient: what the store clients send through.
        .target(
            name: "BoundedHTTP",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Google's HTTP endpoints: OAuth2 access tokens for a service account and the Android Publisher API's
        // purchase methods, on AsyncHTTPClient.
        .target(
            name: "GooglePlayClients",
            dependencies: [
                "GooglePlay", "BoundedHTTP",
                "SubLedgerCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The database side: schema migrations, the embedded cluster, the ledger's PostgreSQL store.
        .target(
            name: "SubLedgerStore",
            dependencies: [
                "PostgresLibPQ",
                "SubLedgerCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.embedInCode("Resources/migrations"), .embedInCode("Resources/citus-distribute.sql")],
            swiftSettings: swiftSettings
        ),
        // The catalog file (YAML or JSON): the core's catalog and, beside it, the apps' secrets.
        .target(
            name: "CatalogFile",
            dependencies: ["SubLedgerCore", "SubLedgerStore", .product(name: "Yams", package: "Yams")],
            swiftSettings: swiftSettings
        ),
        // Reports on subscription state, and the admin page's HTML and SVG.
        .target(
            name: "SubLedgerReports",
            dependencies: ["PostgresLibPQ", "SubLedgerCore"],
            swiftSettings: swiftSettings
        ),
        // What SubLedger does, apart from any HTTP server: ingestion, the Apple gateway, the renewal job,
        // notification recovery, the consumption responder, renewal-date extensions, import, support, webhook
        // delivery, read replicas and the metrics they record.
        .target(
            name: "SubLedgerUseCases",
            dependencies: [
                "SubLedgerStore",
                "SubLedgerReports",
                "SubLedgerCore",
                "PostgresLibPQ",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        // The App Store as a store of the ledger: its port (receipts, StoreKit 2 transactions and Server
        // Notifications, chains read back from the App Store Server API or verifyReceipt), the Apple gateway with its
        // circuit breaker, missed-notification recovery, its obligations (consumption answers, External Purchase
        // reports), renewal-date extensions, offer signatures, app transaction claims, support lookups with Apple and
        // the import of transaction ids and receipts, exported as one `StoreRegistration`. Depends on the use cases'
        // protocols; nothing but the composition root depends on it.
        .target(
            name: "AppStoreStore",
            dependencies: [
                "SubLedgerUseCases",
                "SubLedgerStore",
                "SubLedgerCore",
                "AppStore",
                "AppStoreClients",
                "PostgresLibPQ",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // Google Play as a store of the ledger: its port (real-time developer notifications and purchases read back
        // from the Developer API), its voided-purchases reconciliation, its acknowledgements, its purchase import,
        // exported as one `StoreRegistration`. Depends on the use cases' protocols; nothing but the composition root
        // depends on it.
        .target(
            name: "GooglePlayStore",
            dependencies: [
                "SubLedgerUseCases",
                "SubLedgerStore",
                "SubLedgerCore",
                "GooglePlay",
                "GooglePlayClients",
                "PostgresLibPQ",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        // Stripe as a store of the ledger: its port (webhooks and Checkout Sessions read back from the API), its
        // events-list reconciliation, its web checkout and subscription import, exported as one `StoreRegistration`.
        // Depends on the use cases' protocols; nothing but the composition root depends on it.
        .target(
            name: "StripeStore",
            dependencies: [
                "SubLedgerUseCases",
                "SubLedgerStore",
                "SubLedgerCore",
                "Stripe",
                "StripeClients",
                "AppStore",  // the external purchase token a linked-out iOS purchase hands over
                "PostgresLibPQ",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // Paddle Billing as a store of the ledger: its port (notifications and purchases read back from the Paddle API),
        // its events-list reconciliation, its web checkout and subscription import, exported as one `StoreRegistration`.
        // Depends on the use cases' protocols; nothing but the composition root depends on it.
        .target(
            name: "PaddleStore",
            dependencies: [
                "SubLedgerUseCases",
                "SubLedgerStore",
                "SubLedgerCore",
                "Paddle",
                "PaddleClients",
                "PostgresLibPQ",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // The HTTP edge (Hummingbird 2): controllers, middleware, representations, the mapping of errors to
        // answers.
        .target(
            name: "SubLedgerHTTP",
            dependencies: [
                "SubLedgerUseCases",
                "SubLedgerReports",
                "SubLedgerCore",
                "PostgresLibPQ",
                .product(name: "Hummingbird", package: "hummingbird"),
                // The server's HTTP/1 connections (`SubLedgerHTTP1Channel`).
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The HTTP parser's errors and the request parts around them (ParserErrorAnswer).
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                // The HTTP/1 pipeline of `SubLedgerHTTP1Channel`.
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // Each request's server span (`ServerSpanMiddleware`), with traces on.
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            resources: [.embedInCode("Resources/openapi.yaml")],
            swiftSettings: swiftSettings
        ),
        // The composition root: which services `serve` and `poll` run, and how each store's gateways, ports,
        // reconciliations and obligation sender are built for them.
        .target(
            name: "SubLedgerComposition",
            dependencies: [
                "SubLedgerHTTP",
                "SubLedgerUseCases",
                "SubLedgerStore",
                "SubLedgerCore",
                "PostgresLibPQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // A local, wire-compatible simulator of Apple's App Store servers, driven by a control API.
        .target(
            name: "AppStoreSimulator",
            dependencies: [
                "AppStore", "SubLedgerCore", "SeededRandom",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The thin `appstore-sim` executable.
        .executableTarget(
            name: "appstore-sim",
            dependencies: [
                "AppStoreSimulator",
                "SubLedgerCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // A local, wire-compatible simulator of Google Play's Developer API, OAuth2 token endpoint and real-time
        // developer notifications (Pub/Sub push), driven by a control API.
        .target(
            name: "GooglePlaySimulator",
            dependencies: [
                "GooglePlay", "SubLedgerCore", "SeededRandom",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // A wire-compatible Stripe for tests and the quick start: its API (form-encoded), webhooks signed as Stripe
        // signs them, a manual clock that renews subscriptions, faults.
        .target(
            name: "StripeSimulator",
            dependencies: [
                "SubLedgerCore", "SeededRandom",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The thin `stripe-sim` executable.
        .executableTarget(
            name: "stripe-sim",
            dependencies: [
                "StripeSimulator", "SubLedgerCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // paddle-sim: a local Paddle Billing (API v1): catalog, transactions with Paddle's totals, a checkout,
        // subscriptions on a manual clock, adjustments, the events list, notifications signed as Paddle signs them.
        .target(
            name: "PaddleSimulator",
            dependencies: [
                "SubLedgerCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The thin `paddle-sim` executable.
        .executableTarget(
            name: "paddle-sim",
            dependencies: [
                "PaddleSimulator", "SubLedgerCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // paddle-sim's pure parts (signature, calendar, pagination) and its lifecycle on the clock, in-process.
        .testTarget(
            name: "PaddleSimulatorTests",
            dependencies: [
                "PaddleSimulator", "SubLedgerCore",
                "HTTPTestSupport",  // the webhook receiver of PaddleSimulatorServerTests
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The thin `play-sim` executable.
        .executableTarget(
            name: "play-sim",
            dependencies: [
                "GooglePlaySimulator",
                "SubLedgerCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The `subledger` commands: each parses its options and runs the use cases (the composition root of the
        // command-line tools; tests run them in-process through `CommandContext`).
        .target(
            name: "SubLedgerCommands",
            dependencies: [
                "CatalogFile",
                "SubLedgerComposition",
                "SubLedgerHTTP",
                "SubLedgerUseCases",
                "SubLedgerStore",
                "SubLedgerReports",
                "PostgresLibPQ",
                "AppStore",
                "StripeClients",
                // The one place the store modules are named: their registrations join the store registry here.
                "AppStoreStore",
                "GooglePlayStore",
                "PaddleClients",
                "PaddleStore",
                "StripeStore",
                "SubLedgerCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // The OpenTelemetry tracer `serve` and `poll` install when traces are configured.
                .product(name: "OTel", package: "swift-otel"),
            ],
            swiftSettings: swiftSettings
        ),
        // The thin `subledger` executable: runs SubLedgerCommand.
        .executableTarget(
            name: "subledger",
            dependencies: [
                "SubLedgerCommands",
                "SubLedgerHTTP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // `subledger-bench`: loads a benchmark ledger through the real store and pre-signs notifications
        // (scripts/bench).
        .executableTarget(
            name: "subledger-bench",
            dependencies: [
                "AppStore", "GooglePlay", "Stripe",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                "SubLedgerCore",
                "SubLedgerReports",
                "SubLedgerStore",
                "PostgresLibPQ",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Tests come in two kinds. Unit tests (`<Module>Tests`) touch no database and no socket: they depend on no
        // test-database or HTTP helper. Integration tests (`<Module>IntegrationTests`) run against the PostgreSQL
        // `scripts/test` starts (each test in a database of its own), over loopback HTTP, or spawn the binaries.

        // Helpers of the integration suites: a database per test on the test cluster, copied from a template.
        .target(
            name: "SubLedgerTestSupport",
            dependencies: ["PostgresLibPQ", "SeededRandom", .product(name: "Logging", package: "swift-log")],
            path: "Tests/SubLedgerTestSupport",
            swiftSettings: swiftSettings
        ),
        // The ledger's template database for the suites that need a migrated schema (SubLedgerTestSupport stays
        // free of the store, so PostgresLibPQ's tests do not link it).
        .target(
            name: "LedgerTestSupport",
            dependencies: ["SubLedgerTestSupport", "SubLedgerStore", "SubLedgerCore", "PostgresLibPQ", "CatalogFile"],
            path: "Tests/LedgerTestSupport",
            swiftSettings: swiftSettings
        ),
        // Generated signing chains and payloads for the App Store wire tests and the client tests.
        .target(
            name: "AppStoreTestSupport",
            dependencies: ["AppStore", "SubLedgerCore"],
            path: "Tests/AppStoreTestSupport",
            swiftSettings: swiftSettings
        ),
        // The loopback HTTP stub server shared by the HTTP client and simulator tests.
        .target(
            name: "HTTPTestSupport",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/HTTPTestSupport",
            swiftSettings: swiftSettings
        ),

        // Unit tests.
        .testTarget(
            name: "SeededRandomTests",
            dependencies: ["SeededRandom"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SubLedgerCoreTests",
            dependencies: ["SubLedgerCore", "SeededRandom"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PostgresLibPQTests",
            dependencies: ["PostgresLibPQ"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AppStoreTests",
            dependencies: [
                "AppStore",
                "AppStoreTestSupport",
                "SubLedgerCore",
                "SeededRandom",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StripeTests",
            dependencies: ["Stripe", "SubLedgerCore"],
            resources: [.copy("Resources/stripe-fixtures.json")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PaddleTests",
            dependencies: ["Paddle", "SubLedgerCore"],
            resources: [.copy("Resources/paddle-fixtures.json")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GooglePlayTests",
            dependencies: [
                "GooglePlay",
                "SubLedgerCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SubLedgerStoreTests",
            dependencies: [
                "SubLedgerStore", "SubLedgerCore", "CatalogFile",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SubLedgerReportsTests",
            dependencies: ["SubLedgerReports", "SubLedgerCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SubLedgerUseCasesTests",
            dependencies: [
                "SubLedgerUseCases", "SubLedgerStore", "SubLedgerCore", "AppStore", "SeededRandom",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),  // the reconciliation poller's logger
                // The redacting tracer's spans, recorded by the tracing API's in-memory tracer.
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        // The App Store module's pure parts: recovery requests, refusal messages, External Purchase reports, the
        // import's failure messages.
        .testTarget(
            name: "AppStoreStoreTests",
            dependencies: ["AppStoreStore", "SubLedgerUseCases", "SubLedgerStore", "SubLedgerCore", "AppStore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SubLedgerHTTPTests",
            dependencies: [
                "SubLedgerHTTP", "SubLedgerUseCases", "SubLedgerStore", "SubLedgerCore", "AppStore", "SeededRandom",
                // Every store's registration (`StoreModules.registry`): the push routes they exempt from consistency
                // tokens.
                "SubLedgerCommands",
                "AppStoreStore",  // the App Store's error codes and service errors
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),  // server spans' attributes
                .product(name: "NIOHTTP1", package: "swift-nio"),  // the parser's errors (`ParserErrorAnswer`)
            ],
            swiftSettings: swiftSettings
        ),

        // Integration tests.
        .testTarget(
            name: "PostgresLibPQIntegrationTests",
            dependencies: [
                "PostgresLibPQ", "SubLedgerTestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AppStoreClientsIntegrationTests",
            dependencies: [
                "AppStore",
                "AppStoreTestSupport",
                "AppStoreClients",
                "SubLedgerCore",
                "HTTPTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GooglePlayClientsIntegrationTests",
            dependencies: [
                "GooglePlayClients",
                "BoundedHTTP",
                "GooglePlay",
                "GooglePlaySimulator",
                "SubLedgerCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The Paddle API client against paddle-sim in-process: its reads, pages and errors.
        .testTarget(
            name: "PaddleClientsIntegrationTests",
            dependencies: [
                "PaddleClients",
                "Paddle",
                "PaddleSimulator",
                "BoundedHTTP",
                "SubLedgerCore",
                "HTTPTestSupport",  // the webhook receiver whose notifications are verified and read
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AppStoreSimulatorIntegrationTests",
            dependencies: [
                "AppStoreSimulator", "AppStore", "AppStoreClients", "SubLedgerCore", "HTTPTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GooglePlaySimulatorIntegrationTests",
            dependencies: [
                "GooglePlaySimulator", "GooglePlay", "SubLedgerCore", "HTTPTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SubLedgerStoreIntegrationTests",
            dependencies: [
                "SubLedgerStore", "PostgresLibPQ", "SubLedgerCore", "SubLedgerTestSupport", "LedgerTestSupport",
                "CatalogFile",
                "SubLedgerReports",  // the report projector, which keeps the aggregates these tests read
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SubLedgerReportsIntegrationTests",
            dependencies: [
                "SubLedgerReports", "SubLedgerStore", "PostgresLibPQ", "SubLedgerCore", "SubLedgerTestSupport",
                "LedgerTestSupport", "SeededRandom", "CatalogFile",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SubLedgerHTTPIntegrationTests",
            dependencies: [
                "SubLedgerHTTP", "SubLedgerUseCases", "SubLedgerStore", "SubLedgerCore", "AppStore", "PostgresLibPQ",
                "SubLedgerComposition",  // AppleFaultTests and PgBouncerTests run `serve` whole
                "SubLedgerCommands",  // every store's registration (`StoreModules.registry`): their routes
                "SubLedgerTestSupport", "LedgerTestSupport", "CatalogFile",
                "AppStoreSimulator",
                "SeededRandom",  // the customer-life simulation's worlds
                .product(name: "PropertyBased", package: "swift-property-based"),  // … and their shrinking
                "GooglePlay", "GooglePlayClients", "GooglePlaySimulator", "Stripe", "StripeClients", "StripeSimulator",
                "AppStoreStore", "GooglePlayStore", "StripeStore",
                "Paddle", "PaddleClients", "PaddleSimulator", "PaddleStore",
                // The seller's calls to paddle-sim (PaddleHarness).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "SubLedgerReports",  // SupportLookupTests read the SupportAnswer values
                .product(name: "_CryptoExtras", package: "swift-crypto"),  // push tokens signed by the tests
                "HTTPTestSupport",  // webhook delivery tests: the receiver
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird"),
                // A server on `SubLedgerHTTP1Channel` (EntitlementReadsOnEventLoopTests).
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // A registry per server, whose request metrics EntitlementReadsOnEventLoopTests compares.
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SubLedgerCommandsIntegrationTests",
            dependencies: [
                "SubLedgerCommands", "SubLedgerStore", "SubLedgerCore", "PostgresLibPQ", "SubLedgerTestSupport",
                "LedgerTestSupport", "CatalogFile",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
