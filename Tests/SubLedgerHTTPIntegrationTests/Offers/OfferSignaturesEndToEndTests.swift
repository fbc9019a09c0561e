import AppStore
import AppStoreSimulator
import Crypto
import Foundation
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerUseCases
import Testing

/// `POST /v1/offers/signatures` over real HTTP, with appstore-sim as Apple: eligibility comes from what the
/// ledger ingested, and every signature is verified with the app's public key only.
@Suite struct OfferSignaturesEndToEndTests {
    typealias E = EndToEndHarness
    typealias O = OfferHarness

    @Test func aFreeTrialBoughtWithAReceiptMakesTheAccountIneligible() async throws {
        try await O.run { e in
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            let trialID = try #require(bought.transactionID)
            #expect(try await e.submitReceipt(bought.receiptData, account: "alice").status == .ok)

            let answer = try await O.sign(e, ["account_id": "alice", "product_id": "pro.monthly"])
            #expect(answer.status == .ok)
            #expect(answer.json["subscription_group_id"] as? String == "g1")
            #expect(answer.json["transaction_id"] as? String == trialID)
            let intro = answer.json.introductoryOffer
            #expect(intro["eligible"] as? Bool == false)
            #expect((intro["used_by"] as? [String: Any])?["transaction_id"] as? String == trialID)
            #expect(answer.json.promotionalOffer == nil)
            let opened = try O.open(intro["jws"] as? String, with: try O.publicKey(e))
            #expect(opened.verifies)
            #expect(opened.payload["allowIntroductoryOffer"] as? Bool == false)
            #expect(opened.payload["transactionId"] as? String == trialID)
            #expect(opened.payload["productId"] as? String == "pro.monthly")
            #expect(opened.payload["bid"] as? String == E.bundleID)
            #expect(opened.payload["aud"] as? String == "introductory-offer-eligibility")
            #expect(opened.payload["iss"] as? String == (try e.control.app(E.bundleID).serverAPI.issuerID))
            #expect(opened.header["kid"] as? String == (try e.control.app(E.bundleID).serverAPI.keyID))

            // An account the ledger has never seen is eligible; without a transaction id of the customer there
            // is nothing to sign the JWS with, until the app server passes one (its app transaction id).
            let newcomer = try await O.sign(e, ["account_id": "bea", "product_id": "pro.monthly"])
            #expect(newcomer.status == .ok)
            #expect(newcomer.json.introductoryOffer["eligible"] as? Bool == true)
            #expect(newcomer.json.introductoryOffer["jws"] == nil || newcomer.json.introductoryOffer["jws"] is NSNull)
            let withAppTransaction = try await O.sign(
                e, ["account_id": "bea", "product_id": "pro.monthly", "transaction_id": "2000000000000777"])
            let beas = try O.open(withAppTransaction.json.introductoryOffer["jws"] as? String, with: try O.publicKey(e))
            #expect(beas.verifies)
            #expect(beas.payload["allowIntroductoryOffer"] as? Bool == true)
            #expect(beas.payload["transactionId"] as? String == "2000000000000777")
        }
    }

    @Test func aStoreKit2IntroductoryOfferMakesTheAccountIneligibleButAPaidSubscriptionDoesNot() async throws {
        try await O.run { e in
            let trial = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            let trialJWS = try #require(trial.signedTransaction)
            let submitted = try await e.client.call(
                .post, "/v1/transactions", key: e.key,
                json: ["account_id": "carl", "signed_transaction": trialJWS])
            #expect(submitted.status == .ok)
            let carl = try await O.sign(e, ["account_id": "carl", "product_id": "pro.monthly"])
            #expect(carl.json.introductoryOffer["eligible"] as? Bool == false)
            #expect(
                (carl.json.introductoryOffer["used_by"] as? [String: Any])?["transaction_id"] as? String
                    == trial.transactionID)

            let paid = try await e.control.purchase(
                PurchaseRequest(
                    appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly", useFreeTrial: false))
            let paidJWS = try #require(paid.signedTransaction)
            _ = try await e.client.call(
                .post, "/v1/transactions", key: e.key, json: ["account_id": "dina", "signed_transaction": paidJWS])
            let dina = try await O.sign(e, ["account_id": "dina", "product_id": "pro.monthly"])
            #expect(dina.status == .ok)
            #expect(dina.json.introductoryOffer["eligible"] as? Bool == true)
            #expect(dina.json.introductoryOffer["used_by"] == nil || dina.json.introductoryOffer["used_by"] is NSNull)
            let opened = try O.open(dina.json.introductoryOffer["jws"] as? String, with: try O.publicKey(e))
            #expect(opened.verifies)
            #expect(opened.payload["allowIntroductoryOffer"] as? Bool == true)
            #expect(opened.payload["transactionId"] as? String == paid.transactionID)
        }
    }

    /// The documents' second ownership story with a free trial: cleo's chain lapses and moves to dan, who
    /// resubscribes on the same Apple ID. Both accounts have had the group's introductory offer.
    @Test func aChainTransferredAwayStillCountsForItsFormerOwner() async throws {
        try await O.run { e in
            await e.loseNotifications()
            let phone = try e.appleID()
            let first = try await e.control.purchase(
                PurchaseRequest(appleID: phone, bundleID: E.bundleID, productID: "pro.monthly"))
            let trialID = try #require(first.transactionID)
            _ = try await e.submitReceipt(first.receiptData, account: "cleo")
            let chain = try #require(first.originalTransactionID)
            _ = try await e.control.setAutoRenew(chain, enabled: false)
            _ = await e.control.advanceClock(.init(days: 35))
            let resubscribed = try await e.control.purchase(
                PurchaseRequest(appleID: phone, bundleID: E.bundleID, productID: "pro.monthly", useFreeTrial: false))
            #expect(resubscribed.originalTransactionID == chain)
            let byDan = try await e.submitReceipt(resubscribed.receiptData, account: "dan")
            #expect(byDan.json.entitlementIDs == ["pro"])
            #expect(try await e.entitlements("cleo").entitlementIDs.isEmpty)

            for account in ["cleo", "dan"] {
                let answer = try await O.sign(e, ["account_id": account, "product_id": "pro.monthly"])
                #expect(answer.status == .ok)
                #expect(answer.json.introductoryOffer["eligible"] as? Bool == false, "\(account)")
                #expect(
                    (answer.json.introductoryOffer["used_by"] as? [String: Any])?["transaction_id"] as? String
                        == trialID, "\(account)")
            }
        }
    }

    @Test func promotionalOfferSignaturesVerifyWithTheAppsPublicKey() async throws {
        try await O.run { e in
            let token = "5E3B0E5C-0E42-4F0C-9C4A-1D2E3F405060"
            let body = [
                "account_id": "erin", "product_id": "pro.monthly", "offer_identifier": "winback.50",
                "app_account_token": token, "transaction_id": "2000000000000123",
            ]
            let answer = try await O.sign(e, body)
            #expect(answer.status == .ok)
            let offer = try #require(answer.json.promotionalOffer)
            let simApp = try e.control.app(E.bundleID)
            let publicKey = try O.publicKey(e)

            // StoreKit 1: Apple's message rebuilt here from its documented field order.
            let nonce = try #require(offer["nonce"] as? String)
            let timestamp = try #require(offer["timestamp"] as? Int64)
            #expect(UUID(uuidString: nonce) != nil && nonce == nonce.lowercased())
            #expect(timestamp == e.control.clock().now)
            #expect(offer["key_identifier"] as? String == simApp.serverAPI.keyID)
            #expect(offer["app_account_token"] as? String == token.lowercased())
            let message = [
                E.bundleID, simApp.serverAPI.keyID, "pro.monthly", "winback.50", token.lowercased(), nonce,
                String(timestamp),
            ].joined(separator: "\u{2063}")
            let encoded = try #require(offer["signature"] as? String)
            let der = try #require(Data(base64Encoded: encoded))
            let signature = try P256.Signing.ECDSASignature(derRepresentation: der)
            #expect(publicKey.isValidSignature(signature, for: Data(message.utf8)))

            // StoreKit 2: the promotional-offer JWS.
            let opened = try O.open(offer["jws"] as? String, with: publicKey)
            #expect(opened.verifies)
            #expect(opened.header["alg"] as? String == "ES256")
            #expect(opened.header["typ"] as? String == "JWT")
            #expect(opened.header["kid"] as? String == simApp.serverAPI.keyID)
            #expect(opened.payload["aud"] as? String == "promotional-offer")
            #expect(opened.payload["iss"] as? String == simApp.serverAPI.issuerID)
            #expect(opened.payload["bid"] as? String == E.bundleID)
            #expect(opened.payload["productId"] as? String == "pro.monthly")
            #expect(opened.payload["offerIdentifier"] as? String == "winback.50")
            #expect(opened.payload["transactionId"] as? String == "2000000000000123")
            #expect(opened.payload["iat"] as? Int64 == timestamp / 1000)
            let jwsNonce = try #require(opened.payload["nonce"] as? String)
            #expect(jwsNonce == jwsNonce.lowercased() && jwsNonce != nonce)

            // Every signature gets its own nonce.
            let again = try await O.sign(e, body)
            #expect(again.json.promotionalOffer?["nonce"] as? String != nonce)
        }
    }
}
