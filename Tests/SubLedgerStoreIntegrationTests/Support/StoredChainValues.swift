import SubLedgerCore
import SubLedgerTestSupport

/// Random values of every type the stored chain's JSON holds, for the codec's property tests: each optional
/// present or absent, strings with characters that need escaping, non-ASCII and astral characters, and
/// integers at the ends of `Int64`.
struct StoredChainValues {
    var random: SplitMix64
    /// Whether strings may hold U+0000, which Foundation and the codec write as `\u0000` but jsonb refuses.
    var allowsNUL: Bool

    init(seed: UInt64, allowsNUL: Bool) {
        random = SplitMix64(seed: seed)
        self.allowsNUL = allowsNUL
    }

    mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &random) < percent
    }

    mutating func maybe<T>(_ make: (inout Self) -> T) -> T? {
        chance(50) ? make(&self) : nil
    }

    mutating func string() -> String {
        let pieces: [String] = [
            "a", "Z", "0", "-", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{01}", "\u{1F}",
            "\u{7F}", "é", "ß", "☃", "€", "\u{2028}", "\u{FEFF}", "𝄞", "😀", "👩‍👩‍👧", "\u{FFFF}", "{", "}", "[", ":",
            ",", "null", "u", "\\u0041",
        ]
        let length = chance(10) ? 0 : Int.random(in: 1...24, using: &random)
        var text = ""
        for _ in 0..<length {
            if allowsNUL && chance(3) {
                text += "\u{0}"
            } else if chance(60) {
                text.unicodeScalars.append(Unicode.Scalar(UInt8.random(in: 0x21...0x7E, using: &random)))
            } else {
                text += pieces.randomElement(using: &random)!
            }
        }
        return text
    }

    mutating func int64() -> Int64 {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: [Int64.min, Int64.max, 0, -1, 1, Int64.min + 1].randomElement(using: &random)!
        case 1: Int64.random(in: Int64.min...Int64.max, using: &random)
        case 2: Int64.random(in: -1000...1000, using: &random)
        default: Int64.random(in: 0...4_102_444_800_000, using: &random)
        }
    }

    mutating func int() -> Int { Int(int64()) }

    mutating func instant() -> Instant { Instant(millisecondsSince1970: int64()) }

    mutating func account() -> AccountID {
        let characters = Array("abcXYZ0189._@+-")
        let length = chance(5) ? AccountID.maximumLength : Int.random(in: 1...20, using: &random)
        return try! AccountID(String((0..<length).map { _ in characters.randomElement(using: &random)! }))
    }

    mutating func element<T: CaseIterable>(of type: T.Type) -> T {
        Array(T.allCases).randomElement(using: &random)!
    }

    mutating func chainKey() -> ChainKey {
        ChainKey(environment: element(of: StoreEnvironment.self), chainID: string())
    }

    mutating func renewalInfo() -> RenewalInfo {
        RenewalInfo(
            chainID: string(), productID: string(), autoRenewProductID: maybe { $0.string() },
            willAutoRenew: chance(50), expirationIntent: maybe { $0.int() }, isInBillingRetryPeriod: chance(50),
            gracePeriodExpiresDate: maybe { $0.instant() }, priceIncreaseStatus: maybe { $0.int() },
            offerType: maybe { $0.int() }, offerIdentifier: maybe { $0.string() }, renewalDate: maybe { $0.instant() },
            renewalPrice: maybe { $0.int64() }, currency: maybe { $0.string() },
            offerDiscountType: maybe { $0.string() },
            eligibleWinBackOfferIDs: maybe { values in
                (0..<Int.random(in: 0...3, using: &values.random)).map { _ in values.string() }
            },
            billingPlanType: maybe { $0.string() },
            commitment: maybe {
                RenewalCommitment(
                    willAutoRenew: $0.chance(50), autoRenewProductID: $0.maybe { $0.string() },
                    billingPlanType: $0.maybe { $0.string() }, renewalDate: $0.maybe { $0.instant() },
                    renewalPrice: $0.maybe { $0.int64() })
            },
            environment: element(of: StoreEnvironment.self), observedAt: instant())
    }

    mutating func chain() -> SubscriptionChain {
        SubscriptionChain(
            key: chainKey(), bundleID: string(), productType: element(of: ProductType.self),
            owner: maybe { $0.account() }, productID: string(), subscriptionGroupID: maybe { $0.string() },
            latestExpiry: maybe { $0.instant() }, renewalInfo: maybe { $0.renewalInfo() })
    }

    mutating func revocation() -> ObservedRevocation {
        ObservedRevocation(
            revocationDate: instant(), revocationReason: maybe { $0.int() }, isFamilySharing: chance(50),
            lastObservedAt: maybe { $0.instant() }, revocationPercentage: maybe { $0.int() },
            revocationPercentageObservedAt: maybe { $0.instant() })
    }

    mutating func transaction() -> Transaction {
        Transaction(
            transactionID: string(), chainID: string(), productID: string(),
            bundleID: maybe { $0.string() }, quantity: int(), purchaseDate: instant(),
            originalPurchaseDate: maybe { $0.instant() }, expiresDate: maybe { $0.instant() },
            revocationDate: maybe { $0.instant() }, revocationReason: maybe { $0.int() },
            revocationPercentage: maybe { $0.int() }, webOrderLineItemID: maybe { $0.string() },
            subscriptionGroupID: maybe { $0.string() },
            isTrialPeriod: chance(50), isInIntroOfferPeriod: chance(50), offerType: maybe { $0.int() },
            offerIdentifier: maybe { $0.string() }, offerDiscountType: maybe { $0.string() }, isUpgraded: chance(50),
            ownershipType: element(of: OwnershipType.self), accountHint: maybe { $0.string() },
            applicationUsername: maybe { $0.string() }, environment: element(of: StoreEnvironment.self),
            source: element(of: TransactionSource.self), rawProductType: maybe { $0.string() },
            price: maybe { $0.int64() }, currency: maybe { $0.string() }, processingFee: maybe { $0.int64() },
            tax: maybe { $0.int64() },
            partialRefunds: maybe { values in
                (0..<Int.random(in: 0...3, using: &values.random)).map { _ in
                    PartialRefund(
                        date: values.instant(), amount: values.int64(), fee: values.maybe { $0.int64() },
                        payoutEarnings: values.maybe { $0.int64() })
                }
            },
            refundedFee: maybe { $0.int64() },
            payout: maybe { values in
                StatedPayout(
                    currency: values.string(), total: values.int64(), tax: values.int64(), fee: values.int64(),
                    earnings: values.int64(), refundedEarnings: values.maybe { $0.int64() })
            },
            customerID: maybe { $0.string() }, paymentID: maybe { $0.string() }, storefront: maybe { $0.string() },
            signedDate: maybe { $0.instant() }, appTransactionID: maybe { $0.string() },
            billingPlanType: maybe { $0.string() }, commitment: maybe { $0.commitment() })
    }

    mutating func commitment() -> TransactionCommitment {
        TransactionCommitment(
            billingPeriodNumber: int(), totalBillingPeriods: int(), expiresDate: instant(),
            price: maybe { $0.int64() })
    }

    mutating func knownTransaction() -> KnownTransaction {
        KnownTransaction(
            transaction: transaction(), observedAt: maybe { $0.instant() }, account: maybe { $0.account() },
            revocations: (0..<Int.random(in: 0...3, using: &random)).map { _ in revocation() },
            lastUnrevokedObservationAt: maybe { $0.instant() },
            signedDetails: maybe {
                SignedTransactionDetails(
                    price: $0.maybe { $0.int64() }, currency: $0.maybe { $0.string() },
                    storefront: $0.maybe { $0.string() }, appTransactionID: $0.maybe { $0.string() },
                    billingPlanType: $0.maybe { $0.string() }, commitment: $0.maybe { $0.commitment() },
                    observedAt: $0.maybe { $0.instant() })
            })
    }
}
