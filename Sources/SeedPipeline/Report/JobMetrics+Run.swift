import Foundation

extension JobMetrics {
    /// How long a stage of the job took (`build`, `compress`, `verify`, `publish`).
    public mutating func record(stage: String, seconds: Double) {
        add(
            "seedbuild_stage_duration_seconds", (seconds * 1000).rounded() / 1000,
            help: "How long each stage of the last run took, in seconds.", labels: [("stage", stage)])
    }

    /// The build's figures: rows per entity and rows rejected.
    public mutating func record(built: BuiltStore) {
        for entity in built.rowCounts.keys.sorted() {
            set(
                "seedbuild_entity_rows", Double(built.rowCounts[entity] ?? 0), help: "Rows per entity in the store the last run built.",
                labels: [("entity", entity)])
        }
        set("seedbuild_rejected_rows", Double(built.rejected), help: "Rows the last run's build rejected (see its rejects file).")
        if let changes = built.changes { record(changes: changes) }
        for source in built.sources {
            set(
                "seedbuild_source_bytes", Double(source.bytes), help: "Bytes of each CSV file the last run read.",
                labels: [("entity", source.entity), ("file", source.file)])
        }
    }

    /// The artifact's and the deltas' sizes, and what changed against the base.
    public mutating func record(packaged: PackagedArtifact) {
        set("seedbuild_artifact_bytes", Double(packaged.gzip.outputBytes), help: "Bytes of the compressed artifact the last run wrote.")
        set("seedbuild_store_bytes", Double(packaged.gzip.inputBytes), help: "Bytes of the store the last run built.")
        for delta in packaged.deltas {
            set(
                "seedbuild_delta_bytes", Double(delta.bytes),
                help: "Bytes of each delta published with the release, by the data version it starts from.",
                labels: [("from_data_version", "\(delta.fromDataVersion)")])
        }
        set(
            "seedbuild_deltas_left_out", Double(packaged.omittedDeltas.count),
            help: "Deltas the last run left out (too large, or their base's delta unusable).")
        if let version = packaged.manifest.dataVersion {
            set("seedbuild_built_data_version", Double(version), help: "The data version the last run built.")
        }
    }

    /// Rows added, removed and changed per entity against the base release.
    public mutating func record(changes: ChangeReport) {
        for entity in changes.entities {
            for kind in EntityChanges.Kind.allCases {
                set(
                    "seedbuild_changed_rows", Double(entity.count(kind)),
                    help: "Rows added, removed or changed per entity against the release the last run followed.",
                    labels: [("entity", entity.entity), ("change", kind.rawValue)])
            }
        }
    }

    /// The data version the channel's pointer names after the publish, and how it went.
    public mutating func record(published: Publisher.Result) {
        set(
            "seedbuild_published_data_version", Double(published.dataVersion),
            help: "The data version the channel's latest.json names after the last run's publish.")
        let outcomes: [(Publisher.Result.Outcome, String)] = [
            (.published, "published"), (.refreshed, "refreshed"), (.unchanged, "unchanged"),
        ]
        for (outcome, label) in outcomes {
            set(
                "seedbuild_publish_outcome", published.outcome == outcome ? 1 : 0,
                help: "1 for what the last run's publish did: published, refreshed, or unchanged (already published).",
                labels: [("outcome", label)])
        }
    }
}
