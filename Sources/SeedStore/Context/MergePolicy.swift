/// What a save does when another context saved the same object since it was fetched.
///
/// Mirrors Core Data's [merge policies](https://developer.apple.com/documentation/coredata/nsmergepolicy).
public enum MergePolicy: Sendable, Hashable, CaseIterable {
    /// Fail the save with ``ContextError/Kind/mergeConflict``, listing the objects (the default).
    case error
    /// Property by property: the store's newer values win; this context's changes to properties the
    /// other save did not touch are kept (`NSMergeByPropertyStoreTrumpMergePolicy`).
    case storeTrumps
    /// Property by property: this context's changes win; the other save's changes to properties
    /// this context did not touch are kept (`NSMergeByPropertyObjectTrumpMergePolicy`).
    case objectTrumps
    /// This context's whole object replaces the stored one (`NSOverwriteMergePolicy`).
    case overwrite
    /// This context's changes to conflicting objects are discarded (`NSRollbackMergePolicy`).
    case rollback
}
