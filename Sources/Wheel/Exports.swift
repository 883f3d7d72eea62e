/// A host that imports Wheel also sees the cores: the types the picker API speaks in
/// (`WrapMode`) and the cores themselves (`CircularWheel`, and `FiniteRowAdapter` for a
/// widget that needs a row count).
@_exported import WheelCore
