//! The fields of XLA's `CompileOptionsProto` the plugin uses, read from
//! protobuf's wire format (a few varints and nested messages: no schema
//! compiler or protobuf runtime needed).

use crate::error::{Error, Result};

/// What a compile request asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompileOptions {
    /// `executable_build_options.num_replicas` (0 when unset).
    pub num_replicas: i64,
    /// `executable_build_options.num_partitions` (0 when unset).
    pub num_partitions: i64,
    /// `executable_build_options.device_assignment`: for each computation
    /// (partition), the device ids of its replicas.
    pub device_assignment: Vec<Vec<i64>>,
}

impl CompileOptions {
    /// Reads a serialized `CompileOptionsProto`.
    pub fn decode(bytes: &[u8]) -> Result<CompileOptions> {
        let mut options = CompileOptions::default();
        for field in Fields::new(bytes) {
            // CompileOptionsProto.executable_build_options = 3.
            if let (3, Value::Bytes(build)) = field? {
                options.read_build_options(build)?;
            }
        }
        Ok(options)
    }

    fn read_build_options(&mut self, bytes: &[u8]) -> Result<()> {
        for field in Fields::new(bytes) {
            match field? {
                (4, Value::Varint(n)) => self.num_replicas = n as i64,
                (5, Value::Varint(n)) => self.num_partitions = n as i64,
                (9, Value::Bytes(assignment)) => {
                    // DeviceAssignmentProto.computation_devices = 3, each a
                    // ComputationDevice with replica_device_ids = 1.
                    for field in Fields::new(assignment) {
                        if let (3, Value::Bytes(computation)) = field? {
                            let mut ids = Vec::new();
                            for field in Fields::new(computation) {
                                match field? {
                                    (1, Value::Varint(id)) => ids.push(id as i64),
                                    (1, Value::Bytes(packed)) => {
                                        let mut rest = packed;
                                        while !rest.is_empty() {
                                            ids.push(varint(&mut rest)? as i64);
                                        }
                                    }
                                    _ => {}
                                }
                            }
                            self.device_assignment.push(ids);
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// A serialized `DeviceAssignmentProto` for one computation (partition)
/// whose replicas run on `devices`.
pub fn device_assignment(devices: &[i64]) -> Vec<u8> {
    let mut computation = Vec::new();
    for &id in devices {
        put_varint(&mut computation, 1 << 3);
        put_varint(&mut computation, id as u64);
    }
    let mut out = Vec::new();
    put_varint(&mut out, 1 << 3); // replica_count
    put_varint(&mut out, devices.len() as u64);
    put_varint(&mut out, 2 << 3); // computation_count
    put_varint(&mut out, 1);
    put_varint(&mut out, 3 << 3 | 2); // computation_devices
    put_varint(&mut out, computation.len() as u64);
    out.extend(computation);
    out
}

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// A field's value by wire type (fixed-width values are skipped).
enum Value<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    Fixed,
}

/// The `(field number, value)` pairs of one message.
struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Fields { rest: bytes }
    }

    fn field(&mut self) -> Result<(u64, Value<'a>)> {
        let key = varint(&mut self.rest)?;
        let value = match key & 7 {
            0 => Value::Varint(varint(&mut self.rest)?),
            1 => Value::Fixed.skip(&mut self.rest, 8)?,
            2 => {
                let len = usize::try_from(varint(&mut self.rest)?).unwrap_or(usize::MAX);
                if len > self.rest.len() {
                    return Err(truncated());
                }
                let (bytes, rest) = self.rest.split_at(len);
                self.rest = rest;
                Value::Bytes(bytes)
            }
            5 => Value::Fixed.skip(&mut self.rest, 4)?,
            other => {
                return Err(Error::invalid(format!(
                    "compile options: unsupported protobuf wire type {other}"
                )))
            }
        };
        Ok((key >> 3, value))
    }
}

impl<'a> Value<'a> {
    fn skip(self, rest: &mut &'a [u8], n: usize) -> Result<Value<'a>> {
        if rest.len() < n {
            return Err(truncated());
        }
        *rest = &rest[n..];
        Ok(self)
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u64, Value<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let field = self.field();
        if field.is_err() {
            self.rest = &[];
        }
        Some(field)
    }
}

fn truncated() -> Error {
    Error::invalid("compile options: the serialized CompileOptionsProto is truncated")
}

fn varint(rest: &mut &[u8]) -> Result<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, tail) = rest.split_first().ok_or_else(truncated)?;
        *rest = tail;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(Error::invalid(
        "compile options: a varint is longer than 10 bytes",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint_bytes(n: u64) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, n);
        out
    }

    fn message(field: u64, body: &[u8]) -> Vec<u8> {
        let mut out = varint_bytes(field << 3 | 2);
        out.extend(varint_bytes(body.len() as u64));
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn reads_replicas_partitions_and_the_device_assignment() {
        // Two computations: devices [3, 1] (packed) and [2] (unpacked).
        let first = message(1, &[3, 1]);
        let mut second = varint_bytes(1 << 3);
        second.extend(varint_bytes(2));
        let mut assignment = varint_bytes(1 << 3);
        assignment.extend(varint_bytes(2));
        assignment.extend(message(3, &first));
        assignment.extend(message(3, &second));
        let mut build = varint_bytes(4 << 3);
        build.extend(varint_bytes(2));
        build.extend(varint_bytes(5 << 3));
        build.extend(varint_bytes(300));
        // A fixed64 and a float field the reader skips.
        build.extend(varint_bytes(20 << 3 | 5));
        build.extend([0, 0, 128, 63]);
        build.extend(message(9, &assignment));
        let mut options = message(1, b"argument layout");
        options.extend(message(3, &build));
        let decoded = CompileOptions::decode(&options).unwrap();
        assert_eq!(decoded.num_replicas, 2);
        assert_eq!(decoded.num_partitions, 300);
        assert_eq!(decoded.device_assignment, vec![vec![3, 1], vec![2]]);
    }

    #[test]
    fn device_assignments_read_back() {
        let mut options = varint_bytes(4 << 3);
        options.extend(varint_bytes(3));
        options.extend(message(9, &device_assignment(&[5, 0, 130])));
        let decoded = CompileOptions::decode(&message(3, &options)).unwrap();
        assert_eq!(decoded.device_assignment, vec![vec![5, 0, 130]]);
        assert_eq!(decoded.num_replicas, 3);
    }

    #[test]
    fn truncated_input_is_an_error() {
        let build = message(3, &[4 << 3, 2]);
        for cut in 1..build.len() {
            let err = CompileOptions::decode(&build[..cut]).unwrap_err();
            assert!(err.message().contains("truncated"), "{}", err.message());
        }
    }
}
