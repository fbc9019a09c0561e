/// The properties Stripe sends on every object of a kind whatever the object's story: features stripe-sim does not
/// simulate (Connect, shipping, discounts, mandates, revisions…) stated as Stripe states them when unused, most of
/// them `null`. The properties whose values stripe-sim knows (an invoice's customer's email, a subscription's test
/// clock, a charge's card) are set where the object is made; these fill in the rest, so that a client reads every
/// object with the keys Stripe's own example of it has (Stripe's OpenAPI fixtures).
extension JSONValue {
    /// Adds each of `fields` this object lacks.
    mutating func fill(_ fields: [String: JSONValue]) {
        guard case .object(var own) = self else { return }
        own.merge(fields) { existing, _ in existing }
        self = .object(own)
    }
}

extension StripeWorld.State {
    /// An address of which nothing is known.
    static let unknownAddress: JSONValue = [
        "city": nil, "country": nil, "line1": nil, "line2": nil, "postal_code": nil, "state": nil,
    ]

    static let customerFields: [String: JSONValue] = [
        "address": nil, "discount": nil, "preferred_locales": [], "shipping": nil, "tax_exempt": "none",
    ]

    static let productFields: [String: JSONValue] = ["type": "service"]

    static let checkoutSessionFields: [String: JSONValue] = [
        "adaptive_pricing": ["enabled": false], "after_expiration": nil, "allow_promotion_codes": nil,
        "billing_address_collection": nil, "client_secret": nil, "collected_information": nil, "consent": nil,
        "consent_collection": nil, "currency_conversion": nil, "custom_fields": [],
        "custom_text": [
            "after_submit": nil, "shipping_address": nil, "submit": nil, "terms_of_service_acceptance": nil,
        ],
        "customer_account": nil, "customer_details": nil, "discounts": [], "integration_identifier": nil,
        "managed_payments": nil, "origin_context": nil, "payment_link": nil, "payment_method_collection": "always",
        "payment_method_configuration_details": nil, "payment_method_options": [:], "permissions": nil,
        "phone_number_collection": ["enabled": false], "recovered_from": nil, "saved_payment_method_options": nil,
        "setup_intent": nil, "shipping_address_collection": nil, "shipping_cost": nil, "shipping_options": [],
        "submit_type": nil, "ui_mode": "hosted", "wallet_options": nil,
    ]

    /// A payment-mode session's `invoice_creation`: Stripe makes no invoice for a one-time payment unless asked.
    static let noInvoiceCreation: JSONValue = [
        "enabled": false,
        "invoice_data": [
            "account_tax_ids": nil, "custom_fields": nil, "description": nil, "footer": nil, "issuer": nil,
            "metadata": [:], "rendering_options": nil,
        ],
    ]

    static let subscriptionFields: [String: JSONValue] = [
        "application_fee_percent": nil, "billing_cycle_anchor_config": nil,
        "billing_mode": ["flexible": nil, "type": "classic"], "billing_schedules": [], "billing_thresholds": nil,
        "customer_account": nil, "default_source": nil, "default_tax_rates": [],
        "invoice_settings": ["account_tax_ids": nil, "issuer": ["type": "self"]], "managed_payments": nil,
        "next_pending_invoice_item_invoice": nil, "on_behalf_of": nil,
        "payment_settings": [
            "payment_method_options": nil, "payment_method_types": nil, "save_default_payment_method": "off",
        ],
        "pending_invoice_item_interval": nil, "pending_setup_intent": nil, "pending_update": nil,
        "transfer_data": nil, "trial_settings": ["end_behavior": ["missing_payment_method": "create_invoice"]],
    ]

    static let invoiceFields: [String: JSONValue] = [
        "account_tax_ids": nil, "amount_overpaid": 0, "amount_shipping": 0, "application": nil,
        "automatically_finalizes_at": nil, "custom_fields": nil, "customer_account": nil, "customer_tax_ids": [],
        "default_payment_method": nil, "default_source": nil, "default_tax_rates": [], "discounts": [], "footer": nil,
        "from_invoice": nil, "issuer": ["type": "self"], "last_finalization_error": nil, "latest_revision": nil,
        "on_behalf_of": nil,
        "payment_settings": ["default_mandate": nil, "payment_method_options": nil, "payment_method_types": nil],
        "post_payment_credit_notes_amount": 0, "pre_payment_credit_notes_amount": 0,
        "rendering": [
            "amount_tax_display": nil, "pdf": ["page_size": "auto"], "template": nil, "template_version": nil,
        ],
        "shipping_cost": nil, "shipping_details": nil, "statement_descriptor": nil, "total_discount_amounts": [],
        "total_pretax_credit_amounts": [],
    ]

    static let paymentIntentFields: [String: JSONValue] = [
        "amount_capturable": 0, "amount_details": ["tip": [:]], "application": nil, "application_fee_amount": nil,
        "automatic_payment_methods": nil, "canceled_at": nil, "cancellation_reason": nil,
        "confirmation_method": "automatic", "customer_account": nil, "excluded_payment_method_types": nil,
        "managed_payments": nil, "next_action": nil, "on_behalf_of": nil, "payment_method": nil,
        "payment_method_configuration_details": nil,
        "payment_method_options": [
            "card": [
                "installments": nil, "mandate_options": nil, "network": nil, "request_three_d_secure": "automatic",
            ]
        ],
        "processing": nil, "receipt_email": nil, "review": nil, "setup_future_usage": nil, "shipping": nil,
        "source": nil, "statement_descriptor": nil, "statement_descriptor_suffix": nil, "transfer_data": nil,
        "transfer_group": nil,
    ]

    /// A charge's properties Stripe always sends. Its `refunds` list is not among them: Stripe includes it only
    /// when asked (`expand[]=refunds`).
    static let chargeFields: [String: JSONValue] = [
        "application": nil, "application_fee": nil, "application_fee_amount": nil,
        "calculated_statement_descriptor": "STRIPE-SIM", "failure_balance_transaction": nil, "fraud_details": [:],
        "on_behalf_of": nil, "receipt_email": nil, "receipt_number": nil, "review": nil, "shipping": nil,
        "source": nil, "source_transfer": nil, "statement_descriptor": nil, "statement_descriptor_suffix": nil,
        "transfer_data": nil, "transfer_group": nil,
    ]

    static let refundFields: [String: JSONValue] = [
        "customer_account": nil, "payment_method": nil, "source_transfer_reversal": nil, "transfer_reversal": nil,
    ]

    /// A dispute's evidence before any is submitted: every field `null`.
    static let emptyEvidence: JSONValue = .object(
        Dictionary(
            uniqueKeysWithValues: [
                "access_activity_log", "billing_address", "cancellation_policy", "cancellation_policy_disclosure",
                "cancellation_rebuttal", "customer_communication", "customer_email_address", "customer_name",
                "customer_purchase_ip", "customer_signature", "duplicate_charge_documentation",
                "duplicate_charge_explanation", "duplicate_charge_id", "product_description", "receipt",
                "refund_policy", "refund_policy_disclosure", "refund_refusal_explanation", "service_date",
                "service_documentation", "shipping_address", "shipping_carrier", "shipping_date",
                "shipping_documentation", "shipping_tracking_number", "uncategorized_file", "uncategorized_text",
            ].map { ($0, JSONValue.null) }
        ).merging(["enhanced_evidence": [:]]) { _, new in new })

    /// The test card a customer pays with: Visa's 4242, or 0002 (Stripe's declining test card) when the customer's
    /// card declines.
    static func cardDetails(declines: Bool) -> JSONValue {
        [
            "type": "card",
            "card": [
                "amount_authorized": nil, "authorization_code": nil, "brand": "visa",
                "checks": ["address_line1_check": nil, "address_postal_code_check": nil, "cvc_check": "pass"],
                "country": "US", "exp_month": 12, "exp_year": 2034, "extended_authorization": nil,
                "fingerprint": declines ? "simDeclinedCard0" : "simVisaCard00000",
                "funding": "credit", "incremental_authorization": nil, "installments": nil,
                "last4": declines ? "0002" : "4242", "mandate": nil, "multicapture": nil, "network": "visa",
                "network_token": ["used": false], "network_transaction_id": nil, "overcapture": nil,
                "regulated_status": "unregulated", "three_d_secure": nil, "wallet": nil,
            ],
        ]
    }

    /// A charge's `billing_details`: the customer's email, nothing else collected.
    static func billingDetails(email: JSONValue) -> JSONValue {
        ["address": unknownAddress, "email": email, "name": nil, "phone": nil, "tax_id": nil]
    }

    /// A subscription item's `plan`: its price as the older Plans API states it.
    static func plan(of price: JSONValue) -> JSONValue {
        let recurring = price["recurring"] ?? nil
        return [
            "id": price["id"] ?? nil, "object": "plan", "active": price["active"] ?? true,
            "amount": price["unit_amount"] ?? nil, "amount_decimal": price["unit_amount_decimal"] ?? nil,
            "billing_scheme": price["billing_scheme"] ?? "per_unit", "created": price["created"] ?? nil,
            "currency": price["currency"] ?? nil, "interval": recurring["interval"] ?? nil,
            "interval_count": recurring["interval_count"] ?? nil, "livemode": false,
            "metadata": price["metadata"] ?? [:], "meter": nil, "nickname": price["nickname"] ?? nil,
            "product": price["product"] ?? nil, "tiers_mode": nil, "transform_usage": nil,
            "trial_period_days": recurring["trial_period_days"] ?? nil, "usage_type": "licensed",
        ]
    }
}

extension StripeWorld.State {
    /// What a paid Checkout Session collected from its customer: the email (the customer's, else the one the session
    /// was made with); no address, name or phone, as stripe-sim's Checkout asks for none.
    func customerDetails(_ session: JSONValue, customer: String?) -> JSONValue {
        let email = customer.flatMap { objects[$0]?["email"]?.string } ?? session["customer_email"]?.string
        return [
            "address": nil, "business_name": nil, "email": JSONValue(email), "individual_name": nil, "name": nil,
            "phone": nil, "tax_exempt": "none", "tax_ids": [],
        ]
    }
}
