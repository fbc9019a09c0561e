import Foundation
import SubLedgerHTTP
import SubLedgerUseCases
import Testing

/// The verification snippets of docs/guides/webhooks.md, "Verifying signatures", run against requests signed by
/// `WebhookSignature`: Python and Node are extracted from the document and run by their interpreters; the
/// Swift block must be exactly `VerifySubLedgerSignature.swift`, which this target compiles and runs.
@Suite struct WebhookSignatureSnippetTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// One request and whether a correct receiver accepts it.
    struct Case: Codable {
        var name: String
        var header: String
        var bodyHex: String
        var secrets: [String]
        var now: Int64
        var valid: Bool

        enum CodingKeys: String, CodingKey {
            case name, header
            case bodyHex = "body_hex"
            case secrets, now, valid
        }
    }

    static func cases() -> [Case] {
        let secret = WebhookSignature.generateSecret()
        let previous = WebhookSignature.generateSecret()
        let body = Array(
            #"{"id":"0b6f2f8e-8a8b-4f63-9a43-3c1d2b9e7a10","type":"entitlement.granted","sequence":1}"#.utf8)
        let t: Int64 = 1_790_000_000
        var tampered = body
        tampered[tampered.count - 2] = UInt8(ascii: "2")
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        let header = WebhookSignature.header(body: body, timestamp: t, secrets: [secret])
        let rotating = WebhookSignature.header(body: body, timestamp: t, secrets: [secret, previous])
        return [
            Case(name: "valid", header: header, bodyHex: hex(body), secrets: [secret], now: t + 10, valid: true),
            Case(
                name: "tampered body", header: header, bodyHex: hex(tampered), secrets: [secret], now: t + 10,
                valid: false),
            Case(name: "wrong secret", header: header, bodyHex: hex(body), secrets: [previous], now: t, valid: false),
            Case(name: "stale", header: header, bodyHex: hex(body), secrets: [secret], now: t + 301, valid: false),
            Case(
                name: "rotation, receiver holds the previous secret", header: rotating, bodyHex: hex(body),
                secrets: [previous], now: t - 5, valid: true),
            Case(
                name: "garbage header", header: "t=abc,v1=zz", bodyHex: hex(body), secrets: [secret], now: t,
                valid: false),
        ]
    }

    /// The fenced block of `language` in the section "Verifying signatures".
    static func snippet(_ language: String) throws -> String {
        let document = try String(
            contentsOf: repository.appendingPathComponent("docs/guides/webhooks.md"), encoding: .utf8)
        let section =
            try #require(document.components(separatedBy: "## Verifying signatures").dropFirst().first)
            .components(separatedBy: "\n## ").first ?? ""
        let opening = "```\(language)\n"
        let start = try #require(section.range(of: opening), "no \(language) block")
        let rest = section[start.upperBound...]
        let end = try #require(rest.range(of: "\n```"))
        return String(rest[..<end.lowerBound]) + "\n"
    }

    /// Runs `program` (written to a file) with `interpreter`, the cases' file as its argument; its output lines.
    static func run(_ interpreter: String, program: String, extension suffix: String) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snippet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("verify.\(suffix)")
        let casesFile = directory.appendingPathComponent("cases.json")
        try program.write(to: script, atomically: true, encoding: .utf8)
        try JSONEncoder().encode(cases()).write(to: casesFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [interpreter, script.path, casesFile.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(interpreter) failed")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static var expected: [String] { cases().map { $0.valid ? "valid" : "invalid" } }

    @Test func pythonSnippetAcceptsValidAndRefusesTamperedRequests() throws {
        let driver = """

            import json, sys
            for case in json.load(open(sys.argv[1])):
                ok = verify_subledger_signature(case["header"], bytes.fromhex(case["body_hex"]), case["secrets"], now=case["now"])
                print("valid" if ok else "invalid")
            """
        #expect(try Self.run("python3", program: Self.snippet("python") + driver, extension: "py") == Self.expected)
    }

    @Test func nodeSnippetAcceptsValidAndRefusesTamperedRequests() throws {
        let driver = """

            for (const c of JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"))) {
              const ok = verifySubLedgerSignature(c.header, Buffer.from(c.body_hex, "hex"), c.secrets, 300, c.now);
              console.log(ok ? "valid" : "invalid");
            }
            """
        #expect(try Self.run("node", program: Self.snippet("javascript") + driver, extension: "js") == Self.expected)
    }

    @Test func swiftSnippetIsTheCompiledOneAndAcceptsValidAndRefusesTamperedRequests() throws {
        let compiled = try String(
            contentsOf: Self.repository.appendingPathComponent(
                "Tests/SubLedgerHTTPIntegrationTests/Webhooks/VerifySubLedgerSignature.swift"),
            encoding: .utf8)
        #expect(try Self.snippet("swift") == compiled)
        for testCase in Self.cases() {
            var bytes: [UInt8] = []
            var index = testCase.bodyHex.startIndex
            while index < testCase.bodyHex.endIndex {
                let next = testCase.bodyHex.index(index, offsetBy: 2)
                bytes.append(UInt8(testCase.bodyHex[index..<next], radix: 16)!)
                index = next
            }
            let verdict = verifySubLedgerSignature(
                header: testCase.header, body: Data(bytes), secrets: testCase.secrets,
                now: Date(timeIntervalSince1970: TimeInterval(testCase.now)))
            #expect(verdict == testCase.valid, "\(testCase.name)")
        }
    }

    @Test func goSnippetIsPresent() throws {
        #expect(try Self.snippet("go").contains("func VerifySubLedgerSignature("))
    }
}
