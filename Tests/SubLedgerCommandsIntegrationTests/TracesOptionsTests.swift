import Testing

@testable import SubLedgerCommands

/// `--traces` and `SUBLEDGER_TRACES` (serve and poll): off by default, `otlp` turns traces on, anything else is
/// refused with a message naming the option and the settings.
@Suite struct TracesOptionsTests {
    static func isOn(_ command: String, _ arguments: [String], _ environment: [String: String] = [:]) throws -> Bool {
        let parsed = try SubLedgerCommand.parseAsRoot([command] + arguments)
        if let serve = parsed as? ServeCommand { return try serve.traces.isOn(environment: environment) }
        return try #require(parsed as? PollCommand).traces.isOn(environment: environment)
    }

    @Test func theTracesOptionParsesAndABadValueIsRefused() throws {
        #expect(try Self.isOn("serve", []) == false)
        #expect(try Self.isOn("serve", ["--traces", "otlp"]))
        #expect(try Self.isOn("serve", [], ["SUBLEDGER_TRACES": "OTLP"]))
        #expect(try Self.isOn("serve", ["--traces", "off"], ["SUBLEDGER_TRACES": "otlp"]) == false)
        #expect(try Self.isOn("poll", ["--traces", "otlp"]))
        #expect(try Self.isOn("poll", [], ["SUBLEDGER_TRACES": "off"]) == false)

        for (arguments, environment) in [(["--traces", "zipkin"], [:]), ([], ["SUBLEDGER_TRACES": "on"])] {
            let error = #expect(throws: (any Error).self) { try Self.isOn("serve", arguments, environment) }
            let message = error.map { SubLedgerCommand.fullMessage(for: $0) } ?? ""
            #expect(message.contains("unknown traces setting"), "\(message)")
            #expect(message.contains("use off or otlp"), "\(message)")
        }
    }

    /// Only OTLP over HTTP is built in: a gRPC protocol in the standard variables is refused at start, with a message
    /// naming the variable, rather than stopping the process.
    @Test func anOTLPProtocolOtherThanHTTPIsRefused() throws {
        #expect(try Self.isOn("serve", ["--traces", "otlp"], ["OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"]))
        #expect(try Self.isOn("serve", ["--traces", "otlp"], ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"]))
        // Traces off: the variables are none of SubLedger's business.
        #expect(try Self.isOn("serve", [], ["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"]) == false)
        let refused: [[String: String]] = [
            ["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"],
            ["OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"],
        ]
        for environment in refused {
            let error = #expect(throws: (any Error).self) { try Self.isOn("poll", ["--traces", "otlp"], environment) }
            let message = error.map { SubLedgerCommand.fullMessage(for: $0) } ?? ""
            #expect(message.contains("=grpc is not supported"), "\(message)")
        }
    }
}
