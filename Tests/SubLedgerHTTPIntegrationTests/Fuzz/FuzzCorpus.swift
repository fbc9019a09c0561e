import AppStore
import Foundation

/// Valid inputs of every route, the campaign's starting points before mutation, and the credentials to
/// send them with.
struct FuzzCorpus: Sendable {
    static let bundleID = "com.example.one"
    static let appAppleID: Int64 = 1_111_111_111
    static let sharedSecret = "one-secret"

    let keyOne: String
    let keyTwo: String
    let adminKey: String
    let signer: JWSSigner
    /// A receipt appstore-sim issued for app one (base64 PKCS#7).
    let validReceipt: String
    /// A StoreKit 2 transaction appstore-sim signed.
    let simSignedTransaction: String?
    /// Milliseconds since 1970 around which valid dates are made.
    let nowMilliseconds: Int64

    // MARK: Seeds

    func accountID(_ random: inout FuzzRandom) -> String {
        random.pick(["alice", "bob", "fuzz-\(random.int(0...9))", "user_42", "a@b.c"])
    }

    func transactionPayload(_ random: inout FuzzRandom) -> FuzzJSON {
        let id = String(random.int(100_000...999_999))
        let original = random.chance(0.7) ? id : String(random.int(100_000...999_999))
        let purchase = nowMilliseconds - Int64(random.int(0...40)) * 86_400_000
        let subscription = random.chance(0.8)
        var members: [(key: String, value: FuzzJSON)] = [
            ("transactionId", .text(id)), ("originalTransactionId", .text(original)),
            ("webOrderLineItemId", .text("w" + id)), ("bundleId", .text(Self.bundleID)),
            ("productId", .text(subscription ? "pro.monthly" : "coins.100")),
            ("purchaseDate", .int(purchase)), ("originalPurchaseDate", .int(purchase)), ("quantity", .int(1)),
            ("type", .text(subscription ? "Auto-Renewable Subscription" : "Consumable")),
            ("inAppOwnershipType", .text("PURCHASED")), ("signedDate", .int(purchase)),
            ("environment", .text(random.pick(["Production", "Sandbox"]))), ("transactionReason", .text("PURCHASE")),
            ("storefront", .text("USA")), ("storefrontId", .text("143441")), ("price", .int(9_990)),
            ("currency", .text("USD")),
        ]
        if subscription {
            members += [
                ("subscriptionGroupIdentifier", .text("g1")),
                ("expiresDate", .int(purchase + 30 * 86_400_000)),
            ]
        }
        if random.chance(0.3) { members.append(("appAccountToken", .text(UUID().uuidString.lowercased()))) }
        if random.chance(0.15) {
            members += [("revocationDate", .int(purchase + 86_400_000)), ("revocationReason", .int(0))]
        }
        return .object(members)
    }

    func renewalPayload(original: String, _ random: inout FuzzRandom) -> FuzzJSON {
        .object([
            ("originalTransactionId", .text(original)), ("autoRenewProductId", .text("pro.monthly")),
            ("productId", .text("pro.monthly")), ("autoRenewStatus", .int(Int64(random.int(0...1)))),
            ("isInBillingRetryPeriod", .bool(random.chance(0.2))), ("signedDate", .int(nowMilliseconds)),
            ("environment", .text("Production")), ("recentSubscriptionStartDate", .int(nowMilliseconds)),
            ("renewalDate", .int(nowMilliseconds + 30 * 86_400_000)),
            ("gracePeriodExpiresDate", .int(nowMilliseconds + 16 * 86_400_000)),
        ])
    }

    func notificationPayload(transaction: String?, renewal: String?, _ random: inout FuzzRandom) -> FuzzJSON {
        var data: [(key: String, value: FuzzJSON)] = [
            ("environment", .text("Production")), ("appAppleId", .int(Self.appAppleID)),
            ("bundleId", .text(Self.bundleID)), ("bundleVersion", .text("1")), ("status", .int(1)),
        ]
        if let transaction { data.append(("signedTransactionInfo", .text(transaction))) }
        if let renewal { data.append(("signedRenewalInfo", .text(renewal))) }
        return .object([
            (
                "notificationType",
                .text(
                    random.pick([
                        "SUBSCRIBED", "DID_RENEW", "REFUND", "EXPIRED", "DID_CHANGE_RENEWAL_STATUS", "TEST",
                        "ONE_TIME_CHARGE",
                    ]))
            ),
            ("subtype", .text(random.pick(["INITIAL_BUY", "RESUBSCRIBE", "AUTO_RENEW_ENABLED", "VOLUNTARY"]))),
            ("notificationUUID", .text(UUID().uuidString.lowercased())), ("data", .object(data)),
            ("version", .text("2.0")), ("signedDate", .int(nowMilliseconds)),
        ])
    }

    func v1Notification(_ random: inout FuzzRandom) -> FuzzJSON {
        let original = String(random.int(100_000...999_999))
        let purchase = nowMilliseconds - 86_400_000
        let info: FuzzJSON = .object([
            ("product_id", .text("pro.monthly")), ("transaction_id", .text(String(random.int(100_000...999_999)))),
            ("original_transaction_id", .text(original)), ("web_order_line_item_id", .text("w" + original)),
            ("purchase_date_ms", .text(String(purchase))), ("original_purchase_date_ms", .text(String(purchase))),
            ("expires_date_ms", .text(String(purchase + 30 * 86_400_000))), ("quantity", .text("1")),
            ("is_trial_period", .text("false")), ("subscription_group_identifier", .text("g1")),
            ("in_app_ownership_type", .text("PURCHASED")),
        ])
        return .object([
            (
                "notification_type",
                .text(
                    random.pick([
                        "DID_RENEW", "INITIAL_BUY", "CANCEL", "REFUND", "DID_CHANGE_RENEWAL_STATUS",
                        "INTERACTIVE_RENEWAL",
                    ]))
            ),
            ("password", .text(Self.sharedSecret)), ("environment", .text(random.pick(["PROD", "Sandbox"]))),
            ("auto_renew_status", .text("true")), ("auto_renew_product_id", .text("pro.monthly")),
            ("auto_renew_status_change_date_ms", .text(String(purchase))), ("bid", .text(Self.bundleID)),
            ("bvrs", .text("1")), ("original_transaction_id", .text(original)),
            ("cancellation_date_ms", .text(String(purchase + 86_400_000))),
            (
                "unified_receipt",
                .object([
                    ("status", .int(0)), ("environment", .text("Production")), ("latest_receipt", .text(validReceipt)),
                    ("latest_receipt_info", .array([info])),
                    (
                        "pending_renewal_info",
                        .array([
                            .object([
                                ("product_id", .text("pro.monthly")), ("original_transaction_id", .text(original)),
                                ("auto_renew_status", .text("1")), ("auto_renew_product_id", .text("pro.monthly")),
                                ("grace_period_expires_date_ms", .text(String(purchase + 40 * 86_400_000))),
                            ])
                        ])
                    ),
                ])
            ),
        ])
    }

    // MARK: Signing

    /// A JWS of `payload`'s exact bytes, validly signed by the trusted test chain.
    func sign(_ payload: FuzzJSON) -> String {
        (try? signer.sign(payloadBytes: payload.data)) ?? "unsigned"
    }

    /// A JWS with a header of the fuzzer's choosing (alg, x5c, crit), validly signed.
    func sign(_ payload: FuzzJSON, header: FuzzJSON) -> String {
        let headerSegment = Base64URL.encode(header.data)
        let payloadSegment = Base64URL.encode(payload.data)
        let signature =
            (try? signer.chain.leafPrivateKey.signature(for: Data("\(headerSegment).\(payloadSegment)".utf8)))
            .map { Base64URL.encode($0.rawRepresentation) } ?? ""
        return "\(headerSegment).\(payloadSegment).\(signature)"
    }

    /// Headers that verifiers must refuse or handle: unknown alg, crit, broken x5c.
    func oddHeader(_ random: inout FuzzRandom) -> (kind: String, header: FuzzJSON) {
        let chain = (try? signer.chain.x5c()) ?? []
        switch random.int(0...6) {
        case 0:
            return ("header: alg none", .object([("alg", .text("none")), ("x5c", .array(chain.map { .text($0) }))]))
        case 1:
            return ("header: alg HS256", .object([("alg", .text("HS256")), ("x5c", .array(chain.map { .text($0) }))]))
        case 2:
            return (
                "header: unknown crit",
                .object([
                    ("alg", .text("ES256")), ("crit", .array([.text("exp")])), ("x5c", .array(chain.map { .text($0) })),
                ])
            )
        case 3:
            return (
                "header: x5c garbage",
                .object([("alg", .text("ES256")), ("x5c", .array([.text("AAAA"), .text("!!"), .text("")]))])
            )
        case 4: return ("header: x5c empty", .object([("alg", .text("ES256")), ("x5c", .array([]))]))
        case 5:
            return (
                "header: x5c reversed",
                .object([("alg", .text("ES256")), ("x5c", .array(chain.reversed().map { .text($0) }))])
            )
        default:
            let huge = Array(repeating: FuzzJSON.text(chain.first ?? "A"), count: random.int(10...200))
            return ("header: x5c very long", .object([("alg", .text("ES256")), ("x5c", .array(huge))]))
        }
    }
}
