/// Products, prices and customers: what a transaction is made of and who pays it.
extension PaddleWorld.State {
    static let taxCategories = [
        "digital-goods", "ebooks", "implementation-services", "professional-services", "saas",
        "software-programming-services", "standard", "training-services", "website-hosting",
    ]
    static let currencies = [
        "USD", "EUR", "GBP", "JPY", "AUD", "CAD", "CHF", "HKD", "SGD", "SEK", "ARS", "BRL", "CNY", "COP", "CZK", "DKK",
        "HUF", "ILS", "INR", "KRW", "MXN", "NOK", "NZD", "PLN", "RUB", "THB", "TRY", "TWD", "UAH", "VND", "ZAR",
    ]

    mutating func createProduct(_ body: RequestFields) throws(PaddleFailure) -> PaddleJSON {
        let name = try body.string("name", required: true)
        let category = try body.oneOf("tax_category", Self.taxCategories, required: true)
        let product: PaddleJSON = [
            "id": .string(newID("pro_")), "name": PaddleJSON(name), "tax_category": PaddleJSON(category),
            "description": PaddleJSON(try body.string("description", maxLength: 2048)),
            "image_url": PaddleJSON(try body.string("image_url", maxLength: 2048)),
            "type": .string(try body.oneOf("type", ["standard", "custom"]) ?? "standard"),
            "custom_data": try body.customData() ?? .null, "status": "active", "import_meta": nil,
            "created_at": nowText, "updated_at": nowText,
        ]
        insert(product, kind: "product")
        emit("product.created", product)
        return product
    }

    mutating func updateProduct(_ id: String, _ body: RequestFields) throws(PaddleFailure) -> PaddleJSON {
        _ = try object(id, prefix: "pro_")
        let name = try body.string("name")
        let description = try body.string("description", maxLength: 2048)
        let status = try body.oneOf("status", ["active", "archived"])
        let customData = try body.customData()
        update(id) { product in
            if let name { product["name"] = .string(name) }
            if body.has("description") { product["description"] = PaddleJSON(description) }
            if let status { product["status"] = .string(status) }
            if let customData { product["custom_data"] = customData }
        }
        return objects[id] ?? .null
    }

    mutating func createPrice(_ body: RequestFields) throws(PaddleFailure) -> PaddleJSON {
        let productID = try body.string("product_id", required: true) ?? ""
        _ = try object(productID, prefix: "pro_")
        let description = try body.string("description", required: true, maxLength: 500)
        guard let unit = try body.object("unit_price") else { throw .invalidField("unit_price", "is required") }
        let amount = try unit.amount("amount") ?? 0
        let currency = try unit.oneOf("currency_code", Self.currencies, required: true) ?? "USD"
        var price: PaddleJSON = [
            "id": .string(newID("pri_")), "product_id": .string(productID), "description": PaddleJSON(description),
            "name": PaddleJSON(try body.string("name", maxLength: 150)),
            "type": .string(try body.oneOf("type", ["standard", "custom"]) ?? "standard"),
            "tax_mode": .string(
                try body.oneOf("tax_mode", ["account_setting", "external", "internal"]) ?? "account_setting"),
            "unit_price": ["amount": Money.text(amount), "currency_code": .string(currency)],
            "unit_price_overrides": [], "billing_cycle": try Self.duration(body, "billing_cycle"),
            "trial_period": try Self.duration(body, "trial_period"), "custom_data": try body.customData() ?? .null,
            "status": "active", "import_meta": nil, "created_at": nowText, "updated_at": nowText,
        ]
        if !price["trial_period"]!.isNull {
            guard !price["billing_cycle"]!.isNull else {
                throw .invalidField("trial_period", "requires a billing_cycle")
            }
            price["trial_period"]?["requires_payment_method"] = true
        }
        var minimum: Int64 = 1
        var maximum: Int64 = 100
        if let quantity = try body.object("quantity") {
            minimum = try quantity.int("minimum", in: 1...999_999_999) ?? 1
            maximum = try quantity.int("maximum", in: 1...999_999_999) ?? 100
            guard minimum <= maximum else { throw .invalidField("quantity.minimum", "must not exceed the maximum") }
        }
        price["quantity"] = ["minimum": .int(minimum), "maximum": .int(maximum)]
        insert(price, kind: "price")
        emit("price.created", price)
        return price
    }

    /// `billing_cycle` or `trial_period`: `{interval: day|week|month|year, frequency: 1...}` or null.
    static func duration(_ body: RequestFields, _ name: String) throws(PaddleFailure) -> PaddleJSON {
        guard let fields = try body.object(name) else { return .null }
        let interval = try fields.oneOf("interval", PaddleCalendar.Interval.allCases.map(\.rawValue), required: true)
        guard let frequency = try fields.int("frequency", in: 1...365) else {
            throw .invalidField("\(name).frequency", "is required")
        }
        return ["interval": PaddleJSON(interval), "frequency": .int(frequency)]
    }

    mutating func createCustomer(_ body: RequestFields) throws(PaddleFailure) -> PaddleJSON {
        let email = try body.string("email", required: true, maxLength: 320) ?? ""
        guard email.contains("@"), !email.hasPrefix("@"), !email.hasSuffix("@") else {
            throw .invalidField("email", "must be a valid email address")
        }
        if let existing = idsByKind["customer"]?.first(where: { objects[$0]?["email"]?.string == email }) {
            throw PaddleFailure(
                status: 409, code: "customer_already_exists",
                detail: "customer email conflicts with customer of id \(existing)")
        }
        let customer: PaddleJSON = [
            "id": .string(newID("ctm_")), "email": .string(email), "name": PaddleJSON(try body.string("name")),
            "locale": .string(try body.string("locale", maxLength: 16) ?? "en"), "marketing_consent": false,
            "status": "active", "custom_data": try body.customData() ?? .null, "import_meta": nil,
            "created_at": nowText, "updated_at": nowText,
        ]
        insert(customer, kind: "customer")
        emit("customer.created", customer)
        return customer
    }

    mutating func updateCustomer(_ id: String, _ body: RequestFields) throws(PaddleFailure) -> PaddleJSON {
        _ = try object(id, prefix: "ctm_")
        let name = try body.string("name")
        let email = try body.string("email", maxLength: 320)
        let customData = try body.customData()
        if let email, !email.contains("@") { throw .invalidField("email", "must be a valid email address") }
        update(id) { customer in
            if body.has("name") { customer["name"] = PaddleJSON(name) }
            if let email { customer["email"] = .string(email) }
            if let customData { customer["custom_data"] = customData }
        }
        emit("customer.updated", id: id)
        return objects[id] ?? .null
    }
}
