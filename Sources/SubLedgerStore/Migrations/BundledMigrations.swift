/// The migrations of `migrations/` compiled into this build (embedded at build time, so the binary needs no files
/// beside it), in order.
///
/// SwiftPM embeds each file of the folder as a static property but cannot list them, so a new migration file is
/// also added here; `BundledMigrationsTests` fails while the folder and this list differ.
public enum BundledMigrations {
    /// Each migration file's name and text, in the order they apply.
    public static func files() -> [(name: String, text: String)] {
        embedded.map { ($0.name, String(decoding: $0.bytes, as: UTF8.self)) }
    }

    /// The bundled migrations as one script of steps.
    public static func script() throws -> SchemaScript {
        try SchemaScript(migrationFiles: files())
    }

    private static let embedded: [(name: String, bytes: [UInt8])] = [
        ("0001_ledger.sql", PackageResources._001_ledger_sql),
        ("0002_report_indexes.sql", PackageResources._002_report_indexes_sql),
        ("0003_sealed_secrets.sql", PackageResources._003_sealed_secrets_sql),
        ("0004_input_backoff_and_quarantine.sql", PackageResources._004_input_backoff_and_quarantine_sql),
        ("0005_renewal_extensions.sql", PackageResources._005_renewal_extensions_sql),
        ("0006_notification_history_cursors.sql", PackageResources._006_notification_history_cursors_sql),
        ("0007_consumption_requests.sql", PackageResources._007_consumption_requests_sql),
        ("0008_import_checkpoints.sql", PackageResources._008_import_checkpoints_sql),
        ("0009_support_lookup_by_account_token.sql", PackageResources._009_support_lookup_by_account_token_sql),
        ("0010_webhook_outbox.sql", PackageResources._010_webhook_outbox_sql),
        ("0011_webhook_clock.sql", PackageResources._011_webhook_clock_sql),
        ("0012_webhook_failure_runs.sql", PackageResources._012_webhook_failure_runs_sql),
        ("0013_entitlement_read_model.sql", PackageResources._013_entitlement_read_model_sql),
        ("0014_revenue.sql", PackageResources._014_revenue_sql),
        ("0015_citus_distribution_keys.sql", PackageResources._015_citus_distribution_keys_sql),
        ("0016_report_indexes_for_large_ledgers.sql", PackageResources._016_report_indexes_for_large_ledgers_sql),
        ("0017_cohort_facts.sql", PackageResources._017_cohort_facts_sql),
        ("0018_ingestion_cohort_refresh.sql", PackageResources._018_ingestion_cohort_refresh_sql),
        ("0019_money_facts.sql", PackageResources._019_money_facts_sql),
        ("0020_operational_spans.sql", PackageResources._020_operational_spans_sql),
        ("0021_retention_totals.sql", PackageResources._021_retention_totals_sql),
        ("0022_revenue_day_totals.sql", PackageResources._022_revenue_day_totals_sql),
        ("0023_ingestion_span_refresh.sql", PackageResources._023_ingestion_span_refresh_sql),
        ("0024_ledger_chain.sql", PackageResources._024_ledger_chain_sql),
        ("0025_input_events.sql", PackageResources._025_input_events_sql),
        ("0026_notification_redactions.sql", PackageResources._026_notification_redactions_sql),
        ("0027_ledger_chain_array_field.sql", PackageResources._027_ledger_chain_array_field_sql),
        ("0028_partial_refunds.sql", PackageResources._028_partial_refunds_sql),
        ("0029_app_transactions.sql", PackageResources._029_app_transactions_sql),
        ("0030_apple_write_backs.sql", PackageResources._030_apple_write_backs_sql),
        ("0031_consumption_request_reasons.sql", PackageResources._031_consumption_request_reasons_sql),
        ("0032_report_projection_queue.sql", PackageResources._032_report_projection_queue_sql),
        ("0033_chain_commitments.sql", PackageResources._033_chain_commitments_sql),
        ("0034_committed_mrr.sql", PackageResources._034_committed_mrr_sql),
        ("0035_citus_cluster.sql", PackageResources._035_citus_cluster_sql),
        ("0036_report_refresh_per_chain.sql", PackageResources._036_report_refresh_per_chain_sql),
        ("0037_account_credit_entries.sql", PackageResources._037_account_credit_entries_sql),
        ("0038_google_play.sql", PackageResources._038_google_play_sql),
        ("0039_google_play_notifications.sql", PackageResources._039_google_play_notifications_sql),
        ("0040_ledger_chain_fields_inlined.sql", PackageResources._040_ledger_chain_fields_inlined_sql),
        ("0041_ledger_chain_fields_computed_once.sql", PackageResources._041_ledger_chain_fields_computed_once_sql),
        ("0042_input_bodies_lz4.sql", PackageResources._042_input_bodies_lz4_sql),
        ("0043_store_obligations.sql", PackageResources._043_store_obligations_sql),
        ("0044_entitlement_grants.sql", PackageResources._044_entitlement_grants_sql),
        ("0045_key_scopes_and_audit_log.sql", PackageResources._045_key_scopes_and_audit_log_sql),
        ("0046_account_aliases.sql", PackageResources._046_account_aliases_sql),
        ("0047_account_erasures.sql", PackageResources._047_account_erasures_sql),
        ("0048_account_erasure_keyed_digests.sql", PackageResources._048_account_erasure_keyed_digests_sql),
        ("0049_consumption_answers_as_obligations.sql", PackageResources._049_consumption_answers_as_obligations_sql),
        ("0050_stripe.sql", PackageResources._050_stripe_sql),
        ("0051_external_purchase_reports.sql", PackageResources._051_external_purchase_reports_sql),
        ("0052_stripe_lookup_indexes.sql", PackageResources._052_stripe_lookup_indexes_sql),
        ("0053_grants_in_read_model.sql", PackageResources._053_grants_in_read_model_sql),
        ("0054_ledger_chain_link_by_key.sql", PackageResources._054_ledger_chain_link_by_key_sql),
        ("0055_account_erasure_any_form.sql", PackageResources._055_account_erasure_any_form_sql),
        (
            "0056_account_erasure_keeps_stripe_orders.sql",
            PackageResources._056_account_erasure_keeps_stripe_orders_sql
        ),
        ("0057_app_store_secrets.sql", PackageResources._057_app_store_secrets_sql),
        (
            "0058_no_upgrade_credit_without_a_refund.sql",
            PackageResources._058_no_upgrade_credit_without_a_refund_sql
        ),
        ("0059_paddle.sql", PackageResources._059_paddle_sql),
        ("0060_store_event_cursors.sql", PackageResources._060_store_event_cursors_sql),
        ("0061_paddle_customer_lookup.sql", PackageResources._061_paddle_customer_lookup_sql),
        ("0062_ledger_chain_linked_as_written.sql", PackageResources._062_ledger_chain_linked_as_written_sql),
        ("0063_column_rules_as_domains.sql", PackageResources._063_column_rules_as_domains_sql),
        (
            "0064_ledger_chain_column_rules_as_domains.sql",
            PackageResources._064_ledger_chain_column_rules_as_domains_sql
        ),
    ]
}
