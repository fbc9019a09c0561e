import AppStore
import AppStoreClients
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// SubLedger's External Purchase Server API client against appstore-sim: a report sent and retrieved to confirm,
/// Apple's refusals as `reportRejected` with the error objects, an unknown report as `nil`, and failures that a
/// retry may cure told from those it cannot.
@Suite struct ExternalPurchaseClientTests {
    static func refusal<T>(_ call: () async throws -> T) async -> AppStoreServerAPIError? {
        do {
            _ = try await call()
            return nil
        } catch {
            return error as? AppStoreServerAPIError
        }
    }

    @Test func aReportIsSentThenRetrievedToConfirmIt() async throws {
        try await SimulatorFixture.with { fixture in
            let issued = try await ExternalPurchaseReportTests.issueToken(fixture)
            let client = try fixture.serverAPIClient()
            let requestIdentifier = UUID().uuidString.lowercased()
            // Not sent yet: Apple answers NotFoundError, which the client reads as no report.
            #expect(try await client.retrieveExternalPurchaseReport(requestIdentifier: requestIdentifier) == nil)
            let report = ExternalPurchaseReport(
                requestIdentifier: requestIdentifier, externalPurchaseID: issued.externalPurchaseID,
                status: .lineItem,
                lineItems: [ExternalPurchaseReportTests.subscriptionStart("li-1", created: issued.tokenCreationDate)])
            let accepted = try await client.sendExternalPurchaseReport(report)
            #expect(accepted.requestIdentifier == requestIdentifier)
            #expect(try await client.retrieveExternalPurchaseReport(requestIdentifier: requestIdentifier) == report)

            // Sending it again is refused as a duplicate, with Apple's error objects.
            let duplicate = await Self.refusal { try await client.sendExternalPurchaseReport(report) }
            #expect(duplicate?.code == .reportRejected)
            #expect(duplicate?.httpStatus == 400)
            #expect(duplicate?.isRetryable == false)
            #expect(duplicate?.reportErrors?.map(\.errorCode) == [1, 1])
            #expect(duplicate?.reportErrors?.map(\.fieldName) == ["requestIdentifier", "lineItemId"])
            #expect(fixture.simulator.control.externalPurchaseReports().count == 1)
        }
    }

    @Test func aSandboxTokenIsUnknownToProductionAndAFailingServerIsRetryable() async throws {
        try await SimulatorFixture.with { fixture in
            let issued = try await ExternalPurchaseReportTests.issueToken(fixture)
            let report = ExternalPurchaseReport(
                requestIdentifier: UUID().uuidString.lowercased(), externalPurchaseID: issued.externalPurchaseID,
                status: .noLineItem)
            let production = try fixture.serverAPIClient(.production)
            let unknown = await Self.refusal { try await production.sendExternalPurchaseReport(report) }
            #expect(unknown?.code == .reportRejected)
            #expect(
                unknown?.reportErrors == [ExternalPurchaseReportErrorCode.notFound.error(field: "externalPurchaseId")])

            fixture.simulator.control.setFault(FaultRule(kind: .http503, rate: 1, remaining: 1), for: .serverAPI)
            let sandbox = try fixture.serverAPIClient()
            let unavailable = await Self.refusal { try await sandbox.sendExternalPurchaseReport(report) }
            #expect(unavailable?.code == .serverError)
            #expect(unavailable?.isRetryable == true)
            #expect(fixture.simulator.control.externalPurchaseReports().isEmpty)
            // The fault spent, the same report with the same identifier goes through.
            #expect(try await sandbox.sendExternalPurchaseReport(report).requestIdentifier == report.requestIdentifier)
            #expect(fixture.simulator.control.externalPurchaseReports().map(\.status) == ["NO_LINE_ITEM"])
        }
    }

    @Test func aMalformedIdentifierIsNeverSent() async throws {
        try await SimulatorFixture.with { fixture in
            let client = try fixture.serverAPIClient()
            let refused = await Self.refusal {
                try await client.retrieveExternalPurchaseReport(requestIdentifier: "..")
            }
            #expect(refused?.code == .invalidArgument)
        }
    }
}
