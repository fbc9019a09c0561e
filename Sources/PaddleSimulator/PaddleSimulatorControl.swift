import SubLedgerCore

/// What customers, banks and time do to the simulated Paddle, for tests in-process and for the control routes.
public struct PaddleSimulatorControl: Sendable {
    let world: PaddleWorld
    let deliver: @Sendable () async -> Void

    /// A refusal of a control operation: its HTTP status and Paddle-style code and detail.
    public typealias Refusal = PaddleFailure

    public var now: Instant { Instant(millisecondsSince1970: world.state.withLock { $0.now } * 1000) }

    /// Moves the simulated clock on, renewing, retrying, applying scheduled changes and approving refunds on the
    /// way, and sends the webhooks that follow.
    public func advance(seconds: Int64) async {
        world.state.withLock { state in
            let (target, overflow) = state.now.addingReportingOverflow(max(0, seconds))
            state.advance(to: overflow ? PaddleCalendar.latest : min(target, PaddleCalendar.latest))
        }
        await deliver()
    }

    /// The customer pays transaction `id` at checkout; answers the transaction and, for recurring items, the new
    /// subscription's id.
    public func completeCheckout(_ id: String, customerID: String? = nil, email: String? = nil) async throws
        -> (transaction: String, subscription: String?)
    {
        let result = world.state.withLock { state in
            Result { () throws(PaddleFailure) in
                try state.completeCheckout(id, customerID: customerID, email: email)
            }
        }
        await deliver()
        return try result.get()
    }

    /// Whether the customer's payments are declined from now on (until set back).
    public func setPaymentsDecline(_ customerID: String, _ decline: Bool) throws {
        try world.state.withLock { state throws(PaddleFailure) in
            _ = try state.object(customerID, prefix: "ctm_")
            if decline {
                state.decliningCustomers.insert(customerID)
            } else {
                state.decliningCustomers.remove(customerID)
            }
        }
    }

    /// A chargeback on a completed transaction: all that is left of it, or `amount`. Answers the adjustment's id.
    public func chargeback(_ transactionID: String, amount: Int64?) async throws -> String {
        let result = world.state.withLock { state in
            Result { () throws(PaddleFailure) in try state.chargeback(transactionID, amount: amount)["id"]?.string ?? ""
            }
        }
        await deliver()
        return try result.get()
    }

    /// Paddle approves or rejects a pending refund now.
    public func decideRefund(_ id: String, approve: Bool) async throws {
        let result = world.state.withLock { state in
            Result { () throws(PaddleFailure) in try state.decideRefund(id, approve: approve) }
        }
        await deliver()
        try result.get()
    }

    /// Each notification so far: its event type, attempts, and whether it was delivered or failed.
    public func notifications() -> [(type: String, attempts: Int, delivered: Bool, failed: Bool)] {
        world.state.withLock { state in
            state.notifications.map { record in
                (
                    state.objects[record.eventID]?["event_type"]?.string ?? "", record.attempts, record.delivered,
                    record.failed
                )
            }
        }
    }
}
