import AppStore
import ArgumentParser
import Foundation
import SubLedgerCore

/// `subledger inspect`: identifies, verifies (offline) and prints one Apple artifact as JSON.
///
/// Exit status 0 only when the artifact verified; 1 when it did not (the typed reason is in the JSON and
/// on standard error); 2 when the input or options could not be used.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Decode and verify a JWS, notification (V1/V2) or app receipt, offline.",
        discussion: """
            Reads one artifact from FILE, or from standard input when FILE is '-': a signed transaction, \
            renewal info, app transaction or notification (the {"signedPayload": ...} body or the bare JWS), \
            a V1 notification JSON body, or a base64 app receipt. Prints its fields as JSON with \
            "verified" and the exact typed "reason". Without --bundle-id only the certificate chain and \
            signature are checked. A V1 notification verifies only against the shared secret read from \
            the environment variable named by --shared-secret-env. App receipt signatures are never checked.
            """
    )

    @Argument(help: "The artifact file, or '-' for standard input.")
    var file: String

    @Option(
        name: .customLong("root"),
        help: "A trusted root certificate (DER or PEM); repeatable. Default: Apple Root CA - G3.")
    var roots: [String] = []

    @Flag(name: .customLong("strict-rfc5280"), help: "Require authority key identifiers under --root certificates too.")
    var strictRoots = false

    @Option(name: .customLong("bundle-id"), help: "The app's bundle id; enables app and environment checks.")
    var bundleID: String?

    @Option(name: .customLong("app-apple-id"), help: "The app's Apple id (required for production).")
    var appAppleID: Int64?

    @Option(help: "Production, Sandbox, Xcode or LocalTesting (default: Production).")
    var environment: String?

    @Option(
        name: .customLong("shared-secret-env"),
        help: "Name of the environment variable holding the app's shared secret (V1).")
    var sharedSecretVariable: String?

    @Flag(name: .customLong("at-now"), help: "Check certificate validity now instead of at the payload's signedDate.")
    var validateAtNow = false

    func run() async throws {
        let input: Data
        do {
            input = try readInput()
        } catch {
            printError("inspect: cannot read \(file)")
            throw ExitCode(2)
        }
        var trustedRoots: [TrustedRoot] = []
        do {
            if roots.isEmpty {
                trustedRoots = [try TrustedRoot.appleRootCAG3()]
            } else {
                for path in roots {
                    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                    trustedRoots.append(try TrustedRoot(derOrPEM: bytes, strictRFC5280: strictRoots))
                }
            }
        } catch {
            printError("inspect: cannot load a --root certificate")
            throw ExitCode(2)
        }
        var expectedEnvironment = StoreEnvironment.production
        if let environment {
            guard let parsed = StoreEnvironment(appleSpelling: environment) else {
                throw ValidationError("unknown --environment '\(environment)'")
            }
            expectedEnvironment = parsed
        }
        let sharedSecret = sharedSecretVariable.flatMap { CommandContext.current.environment[$0] }

        let inspector = ArtifactInspector(
            configuration: .init(
                roots: trustedRoots,
                bundleID: bundleID,
                appAppleID: appAppleID,
                environment: expectedEnvironment,
                sharedSecret: sharedSecret,
                validationTime: validateAtNow ? .now : .signedDate
            )
        )
        let report = await inspector.inspect(input)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        printOutput(String(decoding: try encoder.encode(report), as: UTF8.self))
        guard report.verified else {
            printError("inspect: not verified: \(report.reason ?? "unknown")")
            throw ExitCode(1)
        }
    }

    private func readInput() throws -> Data {
        let limit = ArtifactInspector.maximumInputBytes + 1
        if file == "-" {
            return try FileHandle.standardInput.read(upToCount: limit) ?? Data()
        }
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
        defer { try? handle.close() }
        return try handle.read(upToCount: limit) ?? Data()
    }
}
