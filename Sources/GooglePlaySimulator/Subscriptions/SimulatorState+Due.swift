import GooglePlay
import SubLedgerCore

extension SimulatorState {
    /// Applies everything the clock has passed, up to `now`, each event dated when it was due: renewals, grace
    /// periods, account holds and their ends, pauses and resumptions, expiries, and the refund of purchases not
    /// acknowledged within three days.
    mutating func processDue(now: Instant) {
        if let processedThrough, now <= processedThrough, !changedSinceProcessing { return }
        defer {
            processedThrough = now
            changedSinceProcessing = false
        }
        for token in subscriptions.keys.sorted() {
            guard var record = subscriptions[token] else { continue }
            advance(&record, to: now)
            subscriptions[token] = record
        }
        for token in oneTimePurchases.keys.sorted() {
            guard var record = oneTimePurchases[token] else { continue }
            if !record.acknowledged, !record.consumed, !record.refunded, let at = record.acknowledgementDeadline,
                at <= now
            {
                record.refunded = true
                record.refundedQuantity = record.quantity
                voided.append(
                    VoidedRecord(
                        packageName: record.packageName, token: record.token, orderId: record.orderId,
                        purchaseTime: record.purchaseTime, voidedTime: at,
                        source: VoidedPurchase.Source.google.rawValue,
                        reason: VoidedPurchase.Reason.unacknowledgedPurchase.rawValue, isSubscription: false))
                emitVoided(
                    record.packageName, at: at, token: record.token, orderId: record.orderId, isSubscription: false)
            }
            oneTimePurchases[token] = record
        }
    }

    private mutating func advance(_ record: inout SubscriptionRecord, to now: Instant) {
        // Each pass moves the record one step, the earliest due one first; a step always moves a due time forward
        // (or ends the record), so this ends.
        while true {
            if !record.acknowledged, !record.revoked, record.status != .expired, !record.status.isPending,
                record.acknowledgementDeadline <= now,
                record.nextStateChange.map({ record.acknowledgementDeadline <= $0 }) ?? true
            {
                refundUnacknowledged(&record)
                continue
            }
            switch record.status {
            case .pending, .pendingPurchaseCanceled:
                // Completed or canceled only by the control API.
                return
            case .active:
                guard record.periodEnd <= now else { return }
                let at = record.periodEnd
                if let pause = record.scheduledPauseMilliseconds {
                    record.status = .paused
                    record.autoResume = at.adding(milliseconds: pause)
                    record.scheduledPauseMilliseconds = nil
                    emit(record.packageName, at: at, subscription: .paused, record.token)
                } else if record.billingFailing {
                    if record.gracePeriodDays > 0 {
                        record.status = .inGracePeriod
                        record.graceEnd = at.adding(milliseconds: record.gracePeriod)
                        emit(record.packageName, at: at, subscription: .inGracePeriod, record.token)
                    } else {
                        enterHoldOrExpire(&record, at: at)
                    }
                } else {
                    record.renew(periodStart: at, at: at)
                    emit(record.packageName, at: at, subscription: .renewed, record.token)
                    // Google cancels a license tester's subscription after its sixth regular renewal (the end of a
                    // free trial is not one).
                    if record.isTest, record.renewals >= Timing.testRenewalLimit + (record.freeTrialDays == nil ? 0 : 1)
                    {
                        record.status = .canceled
                        record.autoRenew = false
                        record.cancellation = .system
                        record.cancelTime = at
                        emit(record.packageName, at: at, subscription: .canceled, record.token)
                    }
                }
            case .canceled:
                guard record.periodEnd <= now else { return }
                record.status = .expired
                record.expiredAt = record.periodEnd
                emit(record.packageName, at: record.periodEnd, subscription: .expired, record.token)
            case .inGracePeriod:
                guard let graceEnd = record.graceEnd, graceEnd <= now else { return }
                record.graceEnd = nil
                enterHoldOrExpire(&record, at: graceEnd)
            case .onHold:
                guard let holdEnd = record.holdEnd, holdEnd <= now else { return }
                record.holdEnd = nil
                expireBySystem(&record, at: holdEnd)
            case .paused:
                guard let resume = record.autoResume, resume <= now else { return }
                resumeFromPause(&record, at: resume)
            case .expired:
                return
            }
        }
    }

    private mutating func enterHoldOrExpire(_ record: inout SubscriptionRecord, at: Instant) {
        if record.accountHoldDays > 0 {
            record.status = .onHold
            record.holdEnd = at.adding(milliseconds: record.accountHold)
            emit(record.packageName, at: at, subscription: .onHold, record.token)
        } else {
            expireBySystem(&record, at: at)
        }
    }

    /// Google gave up collecting payment: canceled by the system, then expired.
    private mutating func expireBySystem(_ record: inout SubscriptionRecord, at: Instant) {
        record.status = .expired
        record.autoRenew = false
        record.cancellation = .system
        record.cancelTime = at
        record.expiredAt = at
        emit(record.packageName, at: at, subscription: .canceled, record.token)
        emit(record.packageName, at: at, subscription: .expired, record.token)
    }

    /// A paused subscription resumes: a new order and period from `at` (SUBSCRIPTION_RECOVERED).
    mutating func resumeFromPause(_ record: inout SubscriptionRecord, at: Instant) {
        record.status = .active
        record.autoResume = nil
        record.renew(periodStart: at, at: at)
        emit(record.packageName, at: at, subscription: .recovered, record.token)
    }

    /// Three days without an acknowledgement: Google refunds the purchase and revokes it.
    private mutating func refundUnacknowledged(_ record: inout SubscriptionRecord) {
        let at = record.acknowledgementDeadline
        revoke(
            &record, at: at, source: VoidedPurchase.Source.google.rawValue,
            reason: VoidedPurchase.Reason.unacknowledgedPurchase.rawValue, initiator: .system)
    }

    /// Ends the subscription at `at`, voids its latest order and notifies both (REVOKED, then the voided purchase).
    mutating func revoke(
        _ record: inout SubscriptionRecord, at: Instant, source: Int32, reason: Int32,
        initiator: CanceledStateContext.Initiator
    ) {
        record.revoked = true
        record.status = .expired
        record.autoRenew = false
        record.cancellation = record.cancellation ?? initiator
        record.cancelTime = record.cancelTime ?? at
        record.periodEnd = min(record.periodEnd, at)
        record.graceEnd = nil
        record.holdEnd = nil
        record.autoResume = nil
        record.scheduledPauseMilliseconds = nil
        record.expiredAt = at
        record.refundLatestOrder(at: at)
        voided.append(
            VoidedRecord(
                packageName: record.packageName, token: record.token, orderId: record.latestOrderId,
                purchaseTime: record.startTime, voidedTime: at,
                source: source, reason: reason, isSubscription: true))
        emit(record.packageName, at: at, subscription: .revoked, record.token)
        emitVoided(record.packageName, at: at, token: record.token, orderId: record.latestOrderId, isSubscription: true)
    }
}
