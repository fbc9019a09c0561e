import Foundation
import Testing

/// A seeded fuzz campaign against the real `subledger serve` over loopback HTTP.
///
/// Short by default, so it runs with every `scripts/test`; `scripts/fuzz` runs long campaigns with other
/// seeds through `SUBLEDGER_FUZZ_SEED` and `SUBLEDGER_FUZZ_ITERATIONS`. Every finding names its route,
/// its input class, what was observed, the seed, and the (truncated) request that showed it.
@Suite(.serialized) struct ServiceFuzzTests {
    static func expectNoFindings(_ target: FuzzTarget, _ title: String) {
        let report = target.report(title: title)
        print(report)
        for finding in target.findings.all {
            Issue.record(
                """
                fuzz finding (\(target.settings)): [\(finding.route)] \(finding.inputClass) → \(finding.observed) (×\(finding.count))
                request: \(finding.example)
                """)
        }
    }

    /// Random and mutated bodies for orders, receipts, signed transactions and V2 and V1 notifications:
    /// extreme numbers and dates, NUL and invalid UTF-8 in every string, huge and deep JSON, type confusion,
    /// corrupted and re-signed JWS.
    @Test func everyInputRouteSurvivesRandomAndMutatedBodies() async throws {
        let settings = FuzzSettings.fromEnvironment(defaultIterations: 80)
        try await FuzzTarget.run(settings: settings) { target in
            try await target.campaign(FuzzRoute.bodyRoutes)
            Self.expectNoFindings(target, "input routes")
        }
    }

    /// NUL, invalid UTF-8 and a very long value in every string member of every input, the limits of Int64
    /// and beyond in every number (dates included), in payloads signed by the trusted chain and in claims
    /// whose signature does not verify; NUL and invalid UTF-8 in every path id and query option.
    @Test func everyFieldSurvivesNULInvalidUTF8AndNumericLimits() async throws {
        let settings = FuzzSettings.fromEnvironment(defaultIterations: 1)
        try await FuzzTarget.run(settings: settings) { target in
            try await target.sendAll(FuzzSystematic.bodyRequests(target.corpus, seed: settings.seed))
            try await target.sendAll(FuzzSystematic.readRequests(target.corpus))
            Self.expectNoFindings(target, "every field")
        }
    }

    /// Account, report and admin page reads with odd ids, dates and options, over a ledger seeded with
    /// ordinary and very long transaction ids (every report in every format first).
    @Test func readRoutesSurviveOddIdentifiersDatesAndOptions() async throws {
        let settings = FuzzSettings.fromEnvironment(defaultIterations: 80)
        try await FuzzTarget.run(settings: settings) { target in
            try await target.seedLedger()
            try await target.reportSweep()
            try await target.campaign(FuzzRoute.readRoutes)
            Self.expectNoFindings(target, "read routes")
        }
    }

    /// Broken HTTP over a raw socket: malformed chunked bodies, lengths above the limit, disconnects mid-body,
    /// garbage request lines and headers.
    @Test func framingErrorsAreRefusedWithoutHarm() async throws {
        let settings = FuzzSettings.fromEnvironment(defaultIterations: 40)
        try await FuzzTarget.run(settings: settings) { target in
            let cases = FramingCase.all(corpus: target.corpus, seed: settings.seed, randomCount: settings.iterations)
            try await target.framingCampaign(cases)
            Self.expectNoFindings(target, "framing")
        }
    }
}
