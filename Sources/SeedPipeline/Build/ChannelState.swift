import Foundation
import SeedStore

extension BuildRequest {
    /// The channel this build publishes into under `destination` (a folder or URL):
    /// `<destination>/<dataset>/<model-version>/`, where the default command finds its base.
    public func channel(under destination: String) throws -> String {
        let stamped = try stampModel()
        let modelVersion = BaseRelease.modelVersion(identifiers: model.versionIdentifiers, versionHashes: stamped.entityVersionHashes)
        return destination.trimmingCharacters(in: CharacterSet(charactersIn: "/")).isEmpty
            ? "\(dataset)/\(modelVersion)/"
            : (destination.hasSuffix("/") ? destination : destination + "/") + "\(dataset)/\(modelVersion)/"
    }

    /// What the default command finds where it publishes, to choose its base.
    public enum ChannelState: Sendable, Equatable {
        /// The channel has a current release (its pointer reads): the build follows it.
        case released
        /// Nothing is there: the build starts the channel.
        case empty
        /// An `s3://` channel, which a build does not read as apps do: give its public URL as `--base`.
        case notReadable
    }

    /// Reads `channel`'s pointer as an app would, and when there is none, looks for anything else a
    /// release leaves (``ChannelMarker/fileName``; in a folder, a manifest or an artifact), so that a
    /// channel whose pointer went missing is never taken for a new one.
    /// - Throws: ``IngestError`` (exit 75, ``IngestError/Kind/unavailable``) when the pointer cannot be
    ///   read (a 5xx, a timeout, unreadable bytes) or is missing from a channel that holds releases:
    ///   starting such a channel afresh would renumber every object on every device, so it takes `--no-base`.
    public static func channelState(_ channel: String, transport: HTTPTransport = HTTPTransport()) throws(IngestError) -> ChannelState {
        if channel.hasPrefix("s3://") { return .notReadable }
        let fix =
            "fix the channel (restore latest.json by publishing its last release again) and run again, or pass --no-base to start the channel afresh (every object renumbered, no delta for devices)"
        let source: ReleaseChannel
        do {
            source = try ReleaseChannel(channel, transport: transport)
        } catch {
            throw IngestError(.badData, file: channel, "not a channel address: \(error)")
        }
        let pointerURL = source.describe(ReleasePointer.fileName)
        do {
            if let data = try source.read(ReleasePointer.fileName, maxBytes: ReleasePointer.maxBytes) {
                do {
                    _ = try ReleasePointer(data: data, source: pointerURL)
                } catch {
                    throw IngestError(
                        .unavailable, file: pointerURL,
                        "the channel's pointer cannot be read (\(error)), so this build neither follows nor restarts the channel; \(fix)")
                }
                return .released
            }
            if let evidence = try releaseEvidence(in: source) {
                throw IngestError(
                    .unavailable, file: pointerURL,
                    "the pointer is missing, but the channel holds releases (\(evidence)), so this build does not start it afresh; \(fix)")
            }
            return .empty
        } catch let error as IngestError {
            throw error
        } catch {
            throw IngestError(
                .unavailable, file: pointerURL,
                "the channel cannot be read now (\(error)), so this build neither follows nor restarts it; try again later, or pass --no-base to start the channel afresh"
            )
        }
    }

    /// What shows a channel has held releases although its pointer is gone: the marker every publish
    /// leaves, and in a folder any manifest or artifact.
    private static func releaseEvidence(in source: ReleaseChannel) throws -> String? {
        if try source.read(ChannelMarker.fileName, maxBytes: ReleasePointer.maxBytes) != nil {
            return "\(source.describe(ChannelMarker.fileName)) is there"
        }
        guard case .directory(let root) = source.location else { return nil }
        for folder in ["manifests", "artifacts"] {
            let path = (root as NSString).appendingPathComponent(folder)
            if let first = (try? FileManager.default.contentsOfDirectory(atPath: path))?.filter({ !$0.hasPrefix(".") }).sorted().first {
                return "\((path as NSString).appendingPathComponent(first)) is there"
            }
        }
        return nil
    }
}

/// `channel.json`: written by every publish beside the pointer and never removed, so that a build
/// can tell a channel whose pointer went missing from a new one over HTTP, where folders cannot be listed.
public enum ChannelMarker {
    public static let fileName = "channel.json"

    /// The marker's bytes for a channel: the same for every release of it, so a publish writes it once.
    public static func data(dataset: String, modelVersion: String) -> Data {
        let object: JSONValue = .object([
            "dataset": .string(dataset), "modelVersion": .string(modelVersion),
            "note": "written by seedbuild publish: this channel has held releases; its current one is named by latest.json",
        ])
        return Data(object.canonicalBytes)
    }
}
