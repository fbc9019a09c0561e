import AppStore
import AppStoreSimulator
import AsyncHTTPClient
import Foundation
import NIOCore
import SubLedgerCore
import Testing

/// appstore-sim's External Purchase Server API over real HTTP: tokens issued as StoreKit hands them out, reports
/// accepted and retrieved, Apple's documented error objects for what Apple refuses, and the
/// `EXTERNAL_PURCHASE_TOKEN` notification signed like every V2 notification.
@Suite struct ExternalPurchaseReportTests {
    /// A raw call to the External Purchase Server API with the app's bearer token (or none).
    static func call(
        _ fixture: SimulatorFixture, _ method: String, _ path: String, body: String? = nil,
        environment: StoreEnvironment = .sandbox, authorized: Bool = true
    ) async throws -> (status: Int, body: Data) {
        var request = HTTPClientRequest(url: fixture.simulator.serverAPIBaseURL(environment) + path)
        request.method = .RAW(value: method)
        if authorized {
            let issuer = try ServerAPITokenIssuer(
                issuerID: fixture.app.serverAPI.issuerID, keyID: fixture.app.serverAPI.keyID,
                bundleID: SimulatorFixture.bundleID, privateKeyPEM: fixture.app.serverAPI.privateKeyPEM ?? "")
            request.headers.add(name: "Authorization", value: "Bearer \(try issuer.token())")
        }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await fixture.http.execute(request, timeout: .seconds(20))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), Data(buffer: bytes))
    }

    static func issueToken(_ fixture: SimulatorFixture, type: String? = nil, environment: StoreEnvironment = .sandbox)
        async throws -> IssuedExternalPurchaseToken
    {
        try await fixture.controlClient.call(
            "POST", "/control/apps/\(SimulatorFixture.bundleID)/external-purchase-tokens",
            body: ExternalPurchaseTokenRequest(tokenType: type, environment: environment),
            as: IssuedExternalPurchaseToken.self)
    }

    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    /// `(errorCode, fieldName)` of each error object in a 400 answer, in Apple's order.
    static func errors(_ body: Data) throws -> [String] {
        try JSONDecoder().decode(SendReportErrorResponse.self, from: body).errors?.map {
            "\($0.errorCode ?? -1)/\($0.fieldName ?? "")"
        } ?? []
    }

    static func subscriptionStart(_ id: String, created: Int64) -> ExternalPurchaseLineItem {
        var item = ExternalPurchaseLineItem()
        item.lineItemID = id
        item.creationDate = created
        item.rawEventType = "BUY"
        item.rawProductType = "SUBSCRIPTION"
        item.productIdentifier = "pro.monthly"
        item.quantity = 1
        item.amountTaxInclusive = 10_000
        item.amountTaxExclusive = 8_000
        item.taxAmount = 2_000
        item.netAmountTaxExclusive = 8_000
        item.reportingCurrency = "EUR"
        item.pricingCurrency = "EUR"
        item.taxCountry = "ESP"
        item.rawSubscriptionEvent = "SUBSCRIPTION_START"
        item.subscriptionStartDate = created
        item.subscriptionEndDate = created + 30 * 86_400_000
        item.subscriptionDaysOfPaidService = 0
        return item
    }

    @Test func aTokenIsBase64URLJSONOfTheAppAndItsReportIsAcceptedThenRetrieved() async throws {
        try await SimulatorFixture.with { fixture in
            let issued = try await Self.issueToken(fixture, type: "SERVICES")
            let json = try #require(Base64URL.decode(issued.token))
            let token = try JSONDecoder().decode(ExternalPurchaseToken.self, from: json)
            #expect(token.bundleID == SimulatorFixture.bundleID)
            #expect(token.appAppleID == fixture.app.appAppleID)
            #expect(token.externalPurchaseID == issued.externalPurchaseID)
            #expect(token.tokenType == .services)
            #expect(token.environment == .sandbox)
            #expect(issued.externalPurchaseID.hasPrefix("SANDBOX"))

            let requestIdentifier = "1cdc286e-7389-417c-b58f-7a7d196e5bbe"
            let report = ExternalPurchaseReport(
                requestIdentifier: requestIdentifier, externalPurchaseID: issued.externalPurchaseID,
                status: .lineItem, lineItems: [Self.subscriptionStart("li-start", created: issued.tokenCreationDate)])
            let sent = try await Self.call(fixture, "PUT", "/externalPurchase/v1/reports", body: try Self.json(report))
            #expect(sent.status == 200)
            #expect(
                try JSONDecoder().decode(SendReportSuccessResponse.self, from: sent.body).requestIdentifier
                    == requestIdentifier)

            let retrieved = try await Self.call(fixture, "GET", "/externalPurchase/v1/reports/\(requestIdentifier)")
            #expect(retrieved.status == 200)
            #expect(try JSONDecoder().decode(RetrieveReportSuccessResponse.self, from: retrieved.body).report == report)
            let received = fixture.simulator.control.externalPurchaseReports()
            #expect(received.map(\.lineItems) == [["li-start/BUY/SUBSCRIPTION"]])

            // The same identifier again is a duplicate; an unknown one is Apple's NotFoundError; another
            // environment is another store; no bearer token is 401.
            let again = try await Self.call(fixture, "PUT", "/externalPurchase/v1/reports", body: try Self.json(report))
            #expect(again.status == 400)
            #expect(try Self.errors(again.body).contains("1/requestIdentifier"))
            let unknown = try await Self.call(
                fixture, "GET", "/externalPurchase/v1/reports/94d0d7fb-c393-4813-92eb-9614e7540f6d")
            #expect(unknown.status == 400)
            let notFound = try JSONDecoder().decode(ExternalPurchaseReportError.self, from: unknown.body)
            #expect(notFound.errorCode == 3)
            #expect(notFound.fieldName == "requestIdentifier")
            let production = try await Self.call(
                fixture, "GET", "/externalPurchase/v1/reports/\(requestIdentifier)", environment: .production)
            #expect(production.status == 400)
            let anonymous = try await Self.call(
                fixture, "PUT", "/externalPurchase/v1/reports", body: try Self.json(report), authorized: false)
            #expect(anonymous.status == 401)
            #expect(fixture.simulator.control.externalPurchaseReports().count == 1)
        }
    }

    @Test func reportsWithoutTransactionsTakeNoLineItemsAndNameAnIssuedToken() async throws {
        try await SimulatorFixture.with { fixture in
            let issued = try await Self.issueToken(fixture)
            let plain = ExternalPurchaseReport(
                requestIdentifier: "87e7d6d1-b98d-4a8f-b6a4-41ba992a6cad",
                externalPurchaseID: issued.externalPurchaseID,
                status: .noLineItem)
            #expect(
                try await Self.call(fixture, "PUT", "/externalPurchase/v1/reports", body: try Self.json(plain)).status
                    == 200)

            var withItems = plain
            withItems.requestIdentifier = "e1db8b5e-cbd2-4fe6-ae2b-d92ba5b12c41"
            withItems.lineItems = [Self.subscriptionStart("li-x", created: issued.tokenCreationDate)]
            let refused = try await Self.call(
                fixture, "PUT", "/externalPurchase/v1/reports", body: try Self.json(withItems))
            #expect(refused.status == 400)
            #expect(try Self.errors(refused.body) == ["10/status"])

            let stranger = ExternalPurchaseReport(
                requestIdentifier: "c4dcf1a5-afac-4e2c-83d7-280f9f2cb832", externalPurchaseID: "SANDBOX_not-issued",
                status: .unrecognizedToken)
            let unknownToken = try await Self.call(
                fixture, "PUT", "/externalPurchase/v1/reports", body: try Self.json(stranger))
            #expect(try Self.errors(unknownToken.body) == ["3/externalPurchaseId"])

            let empty = try await Self.call(fixture, "PUT", "/externalPurchase/v1/reports", body: "{}")
            #expect(try Self.errors(empty.body) == ["4/requestIdentifier", "4/externalPurchaseId", "4/status"])
            let notJSON = try await Self.call(fixture, "PUT", "/externalPurchase/v1/reports", body: "[1,")
            #expect(notJSON.status == 400)
            #expect(try JSONDecoder().decode(ServerAPIErrorBody.self, from: notJSON.body).errorCode == 4_000_000)
            let badIdentifier = try await Self.call(
                fixture, "PUT", "/externalPurchase/v1/reports",
                body: #"{"requestIdentifier":"dana","externalPurchaseId":"x","status":"NO_LINE_ITEM"}"#)
            #expect(try JSONDecoder().decode(ServerAPIErrorBody.self, from: badIdentifier.body).errorCode == 4_000_000)
            #expect(fixture.simulator.control.externalPurchaseReports().map(\.status) == ["NO_LINE_ITEM"])
        }
    }

    @Test func lineItemsAreCheckedAsAppleDocumentsAndNothingOfARefusedReportIsKept() async throws {
        try await SimulatorFixture.with { fixture in
            let issued = try await Self.issueToken(fixture, type: "ACQUISITION")
            let created = issued.tokenCreationDate
            var wrongSum = Self.subscriptionStart("li-sum", created: created)
            wrongSum.taxAmount = 1_999
            var negative = Self.subscriptionStart("li-negative", created: created)
            negative.netAmountTaxExclusive = -1
            var future = Self.subscriptionStart("li-future", created: created)
            future.creationDate = created + 86_400_000
            var longID = Self.subscriptionStart(String(repeating: "a", count: 129), created: created)
            longID.reportingCurrency = "eur"
            var firstRenewal = Self.subscriptionStart("li-renewal-a", created: created)
            firstRenewal.rawSubscriptionEvent = "RENEWAL"
            firstRenewal.referenceLineItemID = "li-sum"
            var renewalOfRenewal = Self.subscriptionStart("li-renewal-b", created: created)
            renewalOfRenewal.rawSubscriptionEvent = "RENEWAL"
            renewalOfRenewal.referenceLineItemID = "li-renewal-a"
            var refund = ExternalPurchaseLineItem()
            refund.lineItemID = "li-refund"
            refund.creationDate = created
            refund.rawEventType = "REFUND"
            refund.referenceLineItemID = "li-never-sent"
            refund.amountTaxInclusive = 2_500
            refund.amountTaxExclusive = 2_000
            refund.taxAmount = 500
            refund.netAmountTaxExclusive = 6_000
            refund.reportingCurrency = "EUR"
            refund.pricingCurrency = "EUR"
            refund.taxCountry = "ESP"
            var unknownEvent = Self.subscriptionStart("li-event", created: created)
            unknownEvent.rawEventType = "GIFT"
            let report = ExternalPurchaseReport(
                requestIdentifier: "446fdfd8-2c06-4956-873c-8c449a9d61f5",
                externalPurchaseID: issued.externalPurchaseID,
                status: .lineItem,
                lineItems: [wrongSum, negative, future, longID, firstRenewal, renewalOfRenewal, refund, unknownEvent])
            let refused = try await Self.call(
                fixture, "PUT", "/externalPurchase/v1/reports", body: try Self.json(report))
            #expect(refused.status == 400)
            #expect(
                try Self.errors(refused.body) == [
                    "11/amountTaxInclusive", "15/netAmountTaxExclusive", "6/creationDate", "19/lineItemId",
                    "7/reportingCurrency", "14/referenceLineItemId", "3/referenceLineItemId", "7/eventType",
                ])
            let lineItemIDs = try JSONDecoder().decode(SendReportErrorResponse.self, from: refused.body).errors?
                .map(\.lineItemID)
            #expect(lineItemIDs?.first == "li-sum")
            #expect(fixture.simulator.control.externalPurchaseReports().isEmpty)

            // The start, then a renewal and a refund referencing it in a later report, are accepted.
            let start = ExternalPurchaseReport(
                requestIdentifier: "b598cbea-c0a8-44cb-bb0e-abb12ed59cb9",
                externalPurchaseID: issued.externalPurchaseID,
                status: .lineItem, lineItems: [Self.subscriptionStart("li-start", created: created)])
            #expect(
                try await Self.call(fixture, "PUT", "/externalPurchase/v1/reports", body: try Self.json(start)).status
                    == 200)
            var renewal = Self.subscriptionStart("li-renewal-1", created: created)
            renewal.rawSubscriptionEvent = "RENEWAL"
            renewal.referenceLineItemID = "li-start"
            renewal.subscriptionDaysOfPaidService = 30
            refund.referenceLineItemID = "li-start"
            let later = ExternalPurchaseReport(
                requestIdentifier: "2924c319-5205-4188-831a-1ca2c00326b4",
                externalPurchaseID: issued.externalPurchaseID,
                status: .lineItem, lineItems: [renewal, refund])
            #expect(
                try await Self.call(fixture, "PUT", "/externalPurchase/v1/reports", body: try Self.json(later)).status
                    == 200)
            // A line item id is the app's once: sending the start again without `restatement` is a duplicate.
            var repeated = start
            repeated.requestIdentifier = "59908800-c9d3-40c3-b638-8a9c5a535654"
            let duplicate = try await Self.call(
                fixture, "PUT", "/externalPurchase/v1/reports", body: try Self.json(repeated))
            #expect(try Self.errors(duplicate.body) == ["1/lineItemId"])
        }
    }

    /// The fields of the control API's notification answer these tests read.
    struct SentNotification: Decodable {
        var notificationUUID: String
        var notificationType: String
        var subtype: String?
    }

    @Test func anUnreportedTokenNotificationCarriesTheTokenSignedLikeEveryV2Notification() async throws {
        let receiver = try await NotificationReceiver.start()
        defer { Task { await receiver.shutdown() } }
        try await SimulatorFixture.with(notificationURL: receiver.url) { fixture in
            let issued = try await Self.issueToken(fixture, type: "ACQUISITION")
            let summary = try await fixture.controlClient.call(
                "POST", "/control/external-purchase-tokens/\(issued.externalPurchaseID)/notify",
                body: [String: String](), as: SentNotification.self)
            #expect(summary.notificationType == "EXTERNAL_PURCHASE_TOKEN")
            #expect(summary.subtype == "UNREPORTED")
            let notifications = try await fixture.decodeNotifications(receiver.bodies)
            #expect(notifications.map(\.kind) == ["EXTERNAL_PURCHASE_TOKEN/UNREPORTED"])
            let payload = try #require(notifications.first?.payload)
            #expect(payload.data == nil)
            #expect(payload.externalPurchaseToken?.externalPurchaseID == issued.externalPurchaseID)
            #expect(payload.externalPurchaseToken?.appAppleID == fixture.app.appAppleID)
            #expect(payload.externalPurchaseToken?.tokenCreationDate == issued.tokenCreationDate)
            #expect(payload.notificationUUID == summary.notificationUUID)
            // A token the simulator never issued has no notification.
            await #expect(throws: ControlClient.Failure.self) {
                _ = try await fixture.controlClient.call(
                    "POST", "/control/external-purchase-tokens/SANDBOX_unknown/notify", body: [String: String](),
                    as: SentNotification.self)
            }
        }
    }
}
