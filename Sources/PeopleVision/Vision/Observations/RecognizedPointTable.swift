import Foundation

/// The named groups of a points observation (2-D or 3-D), in order, each with its members' keys in order: what
/// ``VNRecognizedPointsObservation`` and ``VNRecognizedPoints3DObservation`` answer group questions from.
struct RecognizedPointGroups: Sendable {
    let members: [(group: VNRecognizedPointGroupKey, keys: [VNRecognizedPointKey])]

    /// The groups of a pose's typed table (its `JointsGroupName.members`).
    init<Group: RawRepresentable, Name: RawRepresentable>(_ table: [(Group, [Name])])
    where Group.RawValue == VNRecognizedPointGroupKey, Name.RawValue == VNRecognizedPointKey {
        members = table.map { ($0.0.rawValue, $0.1.map(\.rawValue)) }
    }

    /// The groups' keys, in order.
    var groupKeys: [VNRecognizedPointGroupKey] { members.map(\.group) }

    /// The member keys of `groupKey`.
    /// - Throws: ``VNErrorCode/invalidArgument`` for a group not here, naming it as a `noun` ("point group").
    func keys(of groupKey: VNRecognizedPointGroupKey, noun: String) throws -> [VNRecognizedPointKey] {
        guard let keys = members.first(where: { $0.group == groupKey })?.keys else {
            throw NSError(vision: .invalidArgument, "no \(noun) named '\(groupKey.rawValue)'; available: \(groupKeys.map(\.rawValue))")
        }
        return keys
    }
}
