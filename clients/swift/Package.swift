// swift-tools-version:6.0
// A Swift client generated from SubLedger's openapi.yaml by swift-openapi-generator (its build plugin), and the
// program scripts/client-test runs through it. Its own package: the main Package.swift does not build it.
// The transport is URLSession's (swift-openapi-urlsession; FoundationNetworking on Linux): with AsyncHTTPClient's
// (swift-openapi-async-http-client 1.5.0 over async-http-client 1.37.0) a first build took 9 minutes on 2 cores instead
// of about 3.5, most of them compiling BoringSSL, SwiftNIO and HTTP/2 that a loopback walkthrough does not need.
import PackageDescription

let package = Package(
    name: "subledger-swift-client",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", exact: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", exact: "1.4.0"),
        // Already under the runtime; named for the walkthrough's authentication middleware.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "SubLedgerWalkthrough",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        )
    ]
)
