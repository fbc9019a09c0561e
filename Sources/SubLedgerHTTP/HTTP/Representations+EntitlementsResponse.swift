import HTTPTypes
import Hummingbird
import NIOCore
import SubLedgerCore
import SubLedgerUseCases

extension Representation {
    /// The body of `GET /v1/accounts/{id}/entitlements`, encoded directly to bytes: the same members and values
    /// as `Codable` encoding of `EntitlementBody` would give (`account_id`, `at`, `entitlements`, `credits`;
    /// absent optionals left out), without Foundation's `JSONEncoder` on the hottest route.
    struct EntitlementsResponse: ResponseGenerator {
        var account: AccountID
        var at: Instant
        var entitlements: [Entitlement]
        var credits: Int64

        func response(from request: Request, context: some RequestContext) throws -> Response {
            let bytes = json()
            var headers = HTTPFields()
            headers.reserveCapacity(4)
            headers.append(HTTPField(name: .contentType, value: "application/json; charset=utf-8"))
            headers.append(HTTPField(name: .contentLength, value: String(bytes.count)))
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }

        func json() -> [UInt8] {
            var writer = JSONWriter(capacity: 128 + 320 * entitlements.count)
            writer.beginObject()
            writer.key("account_id")
            writer.string(account.rawValue)
            writer.key("at")
            writer.time(at)
            writer.key("entitlements")
            writer.beginArray()
            for entitlement in entitlements { Self.write(entitlement, to: &writer) }
            writer.endArray()
            writer.key("credits")
            writer.integer(credits)
            writer.endObject()
            return writer.bytes
        }

        /// One entitlement, as `EntitlementBody` has it.
        static func write(_ entitlement: Entitlement, to writer: inout JSONWriter) {
            writer.beginObject()
            writer.key("entitlement_id")
            writer.string(entitlement.entitlementID)
            writer.key("product_id")
            writer.string(entitlement.productID)
            writer.key("product_type")
            writer.string(entitlement.productType.rawValue)
            writer.key("state")
            writer.string(entitlement.state.name)
            if let expiresAt = entitlement.expiresAt {
                writer.key("expires_at")
                writer.time(expiresAt)
            }
            if let grace = entitlement.gracePeriodExpiresAt {
                writer.key("grace_period_expires_at")
                writer.time(grace)
            }
            if let willAutoRenew = entitlement.willAutoRenew {
                writer.key("will_auto_renew")
                writer.bool(willAutoRenew)
            }
            writer.key("ownership_type")
            writer.string(entitlement.ownershipType.rawValue)
            writer.key("original_transaction_id")
            writer.string(entitlement.chainID)
            writer.key("environment")
            writer.string(entitlement.environment.rawValue)
            // The App Store is the default: another store, or a grant, is named.
            if entitlement.store != .appStore || entitlement.grantID != nil {
                writer.key("store")
                writer.string(entitlement.sourceName)
            }
            writer.endObject()
        }
    }
}
