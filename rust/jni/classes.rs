//! The Java classes, constructors, methods and fields the boundary uses,
//! looked up once per library load instead of by name on every call.
//!
//! A JVM binds a loaded native library to one class loader, and a Flink job
//! restart loads a fresh copy of the library for its new class loader (see
//! `io.durablejournal.internal.NativeLibrary`), so these statics hold the ids
//! of exactly one class loader's classes: the cache cannot hand one loader's
//! class to another. It is filled by `NativeLibrary.jniVersion`, which
//! `NativeLibrary.load` calls right after loading (a class missing from the
//! jar then fails the load with its name), and otherwise by the first call
//! that needs it.
//!
//! Every lookup runs inside a native method of a class of the core jar (or
//! on a thread that such a method is waiting for), so `FindClass` resolves
//! through the core jar's class loader. None of the classes named here loads
//! the library in its static initializer, so binding them never re-enters
//! `NativeLibrary.load`.
//!
//! The cache never keeps that class loader alive. A strong global reference
//! to one of its classes would: the loader would never be collected, the JVM
//! would never unload this copy of the library (`JNI_OnUnload` never runs),
//! and every Flink job resubmit would leave a copy mapped. So classes are
//! held by JNI *weak* global references ([`LoaderClass`]), which stay valid
//! whenever they are used: a class is unloaded only with its whole loader,
//! and every use runs inside a native method of a class of that loader,
//! whose frame keeps the loader alive (the JDK classes named here belong to
//! the bootstrap loader, which is never collected). Method and field ids
//! need no reference: they stay valid as long as their class is loaded.
//! When the loader is collected the JVM calls [`JNI_OnUnload`], which
//! deletes the weak references before the library is unmapped.

use std::ffi::c_void;
use std::sync::OnceLock;

use jni::ids::{JFieldID, JMethodID};
use jni::objects::{JClass, JObject};
use jni::signature::{FieldSignature, MethodSignature};
use jni::strings::JNIStr;
use jni::sys::{jint, jlong, jvalue, jweak, JNI_VERSION_1_8};
use jni::{jni_sig, jni_str, Env};

/// A class held by a JNI weak global reference: it never keeps its class
/// loader alive, and is valid wherever the boundary uses it (module docs).
pub struct LoaderClass(jweak);

// SAFETY: a JNI weak global reference may be used from any thread.
unsafe impl Send for LoaderClass {}
// SAFETY: as for Send; the reference is never changed after it is made.
unsafe impl Sync for LoaderClass {}

impl LoaderClass {
    fn new(env: &Env<'_>, class: &JClass<'_>) -> jni::errors::Result<Self> {
        let (raw, jni) = raw(env);
        // SAFETY: `class` is a live local reference; NewWeakGlobalRef answers
        // null only when the JVM is out of memory (an OutOfMemoryError is then pending).
        let weak = unsafe { (jni.v1_2.NewWeakGlobalRef)(raw, class.as_raw()) };
        if weak.is_null() {
            return Err(jni::errors::Error::JavaException);
        }
        Ok(LoaderClass(weak))
    }

    /// The class, for a JNI call made inside a native method of the
    /// library's class loader (or the bootstrap loader, for JDK classes).
    pub fn get<'l>(&self, env: &Env<'l>) -> JClass<'l> {
        // SAFETY: a weak global reference to a class that cannot have been
        // unloaded (module docs); JNI functions accept weak references
        // wherever they accept references. The wrapper does not own it:
        // nothing deletes it but `JNI_OnUnload`.
        unsafe { JClass::from_raw(env, self.0) }
    }
}

/// A class with the constructor Rust builds it with.
pub struct Constructible {
    class: LoaderClass,
    constructor: JMethodID,
}

impl Constructible {
    fn bind(env: &mut Env<'_>, name: &JNIStr, signature: MethodSignature<'_, '_>) -> jni::errors::Result<Self> {
        let local = env.find_class(name)?;
        let bound = env.get_method_id(&local, jni_str!("<init>"), signature).and_then(|constructor| {
            Ok(Constructible { class: LoaderClass::new(env, &local)?, constructor })
        });
        env.delete_local_ref(local);
        bound
    }

    /// `new Class(args)`; `args` must match the signature bound for this class.
    pub fn new_object<'l>(&self, env: &mut Env<'l>, args: &[jvalue]) -> jni::errors::Result<JObject<'l>> {
        let class = self.class.get(env);
        // SAFETY: the constructor id belongs to this class, and every caller
        // passes the arguments of the signature it was bound with (the
        // signature each `JvmClasses` field documents; JUnit builds every one).
        unsafe { env.new_object_unchecked(&class, self.constructor, args) }
    }
}

/// The fields of `io.durablejournal.store.BusinessKey`.
pub struct BusinessKeyFields {
    pub kind: JFieldID,
    pub number: JFieldID,
    pub bytes: JFieldID,
    pub type_name: JFieldID,
}

/// The fields of `io.durablejournal.store.EntryKey`.
pub struct EntryKeyFields {
    pub business: JFieldID,
    pub seq: JFieldID,
    pub action: JFieldID,
    pub event_kind: JFieldID,
    pub event: JFieldID,
}

/// Everything the boundary reaches in Java, bound once.
pub struct JvmClasses {
    /// `JournalException(int code, String message)`.
    pub journal_exception: Constructible,
    /// `NonDeterministicReplayException(String message, byte[] diffJson)`.
    pub non_deterministic_replay: Constructible,
    /// `CallInterruptedException(String message, byte[] reportJson)`.
    pub call_interrupted: Constructible,
    /// `NullPointerException(String message)`, for a null argument.
    pub null_pointer: Constructible,
    /// `IndexOutOfBoundsException(String message)`, for a bad index.
    pub index_out_of_bounds: Constructible,
    /// `DurableExecutionContext(long nativeJournal)`.
    pub execution_context: Constructible,
    /// `DurableExecutionContext.persistSnapshot(byte[])`.
    pub persist_snapshot: JMethodID,
    /// `JournalSlot(byte[] functionId, byte[] argsDigest, int status, byte[] result, byte[] exception)`.
    pub journal_slot: Constructible,
    /// `store.internal.ResumingEntry(byte[] stateJsonWithoutCalls, boolean completed, int callCount,
    /// byte[] packed, int[] idLengths, int[] resultLengths, byte[][] separateResults, int[] statuses,
    /// byte[][] exceptions)`.
    pub resuming_entry: Constructible,
    /// `store.internal.InFlightEntries(byte[] packed, int[] entryColumns, long[] seqs, int[] slotColumns)`.
    pub in_flight_entries: Constructible,
    /// `byte[]`, the element class of the `byte[][]` a crossing builds ([`super::arrays`]).
    pub byte_array: LoaderClass,
    /// `CallStep(int kind, byte[] result, byte[] exception, byte[] divergence)`.
    pub call_step: Constructible,
    /// `StoreStats(long × 10)`, in the order of `rust/jni/store.rs` `stats`.
    pub store_stats: Constructible,
    /// `LogStoreStats(long × 6)`, in the order of `rust/jni/log_store.rs` `stats`.
    pub log_store_stats: Constructible,
    pub business_key: BusinessKeyFields,
    pub entry_key: EntryKeyFields,
    /// `LogTransport.submit(int[], byte[][], byte[][])`.
    pub transport_submit: JMethodID,
    /// `LogTransport.Appending.await()`.
    pub appending_await: JMethodID,
    /// `LogTransport.endOffsets()`.
    pub transport_end_offsets: JMethodID,
    /// `Throwable.toString()`.
    pub throwable_to_string: JMethodID,
    /// `identity.PendingCall.functionIdUtf8()`, returning `byte[]`.
    pub pending_call_function_id: JMethodID,
    /// `identity.PendingCall.callTreeJson()`, returning `byte[]`.
    pub pending_call_tree: JMethodID,
}

static CLASSES: OnceLock<JvmClasses> = OnceLock::new();

/// The bound classes, binding them on first use.
pub fn classes(env: &mut Env<'_>) -> jni::errors::Result<&'static JvmClasses> {
    if let Some(bound) = CLASSES.get() {
        return Ok(bound);
    }
    let bound = JvmClasses::bind(env)?;
    // Two threads may both bind; the loser deletes its weak references.
    if let Err(loser) = CLASSES.set(bound) {
        let (raw, jni) = raw(env);
        // SAFETY: the loser's references were never handed out.
        unsafe { loser.delete_references(raw, jni) };
    }
    Ok(CLASSES.get().expect("bound above"))
}

/// Called by the JVM once the class loader that loaded this copy of the
/// library was collected, right before the library is unmapped: deletes the
/// weak references the cache made (the ids need no cleanup).
#[no_mangle]
pub extern "system" fn JNI_OnUnload(vm: *mut jni::sys::JavaVM, _reserved: *mut c_void) {
    let Some(bound) = CLASSES.get() else {
        return;
    };
    let mut env: *mut c_void = std::ptr::null_mut();
    // SAFETY: the JVM passes its own JavaVM pointer, and runs this on one of
    // its threads (attached), whose JNIEnv GetEnv answers.
    let attached = unsafe { ((**vm).v1_2.GetEnv)(vm, &mut env, JNI_VERSION_1_8) } == jni::sys::JNI_OK;
    if !attached || env.is_null() {
        return;
    }
    let raw = env.cast::<jni::sys::JNIEnv>();
    // SAFETY: `raw` is this thread's JNIEnv; no code of the library runs
    // any more (its loader is gone), so nothing uses the references after.
    unsafe { bound.delete_references(raw, &**raw) };
}

impl JvmClasses {
    fn bind(env: &mut Env<'_>) -> jni::errors::Result<Self> {
        let context = Constructible::bind(env, jni_str!("io/durablejournal/DurableExecutionContext"), jni_sig!("(J)V"))?;
        let persist_snapshot = env.get_method_id(context.class.get(env), jni_str!("persistSnapshot"), jni_sig!("([B)V"))?;
        let [kind, number, bytes, type_name] = field_ids(env, jni_str!("io/durablejournal/store/BusinessKey"), [
            (jni_str!("kind"), jni_sig!("I")),
            (jni_str!("number"), jni_sig!("J")),
            (jni_str!("bytes"), jni_sig!("[B")),
            (jni_str!("typeName"), jni_sig!("[B")),
        ])?;
        let [business, seq, action, event_kind, event] = field_ids(env, jni_str!("io/durablejournal/store/EntryKey"), [
            (jni_str!("business"), jni_sig!("Lio/durablejournal/store/BusinessKey;")),
            (jni_str!("seq"), jni_sig!("J")),
            (jni_str!("action"), jni_sig!("[B")),
            (jni_str!("eventKind"), jni_sig!("I")),
            (jni_str!("event"), jni_sig!("[B")),
        ])?;
        let transport_submit = method_of(env, jni_str!("io/durablejournal/store/LogTransport"), jni_str!("submit"),
            jni_sig!("([I[[B[[B)Lio/durablejournal/store/LogTransport$Appending;"))?;
        let appending_await = method_of(env, jni_str!("io/durablejournal/store/LogTransport$Appending"), jni_str!("await"), jni_sig!("()[J"))?;
        let transport_end_offsets = method_of(env, jni_str!("io/durablejournal/store/LogTransport"), jni_str!("endOffsets"), jni_sig!("()[J"))?;
        let throwable_to_string = method_of(env, jni_str!("java/lang/Throwable"), jni_str!("toString"), jni_sig!("()Ljava/lang/String;"))?;
        let pending_call = jni_str!("io/durablejournal/identity/PendingCall");
        let pending_call_function_id = method_of(env, pending_call, jni_str!("functionIdUtf8"), jni_sig!("()[B"))?;
        let pending_call_tree = method_of(env, pending_call, jni_str!("callTreeJson"), jni_sig!("()[B"))?;
        Ok(JvmClasses {
            journal_exception: Constructible::bind(env, jni_str!("io/durablejournal/JournalException"), jni_sig!("(ILjava/lang/String;)V"))?,
            non_deterministic_replay: Constructible::bind(env, jni_str!("io/durablejournal/NonDeterministicReplayException"), jni_sig!("(Ljava/lang/String;[B)V"))?,
            call_interrupted: Constructible::bind(env, jni_str!("io/durablejournal/CallInterruptedException"), jni_sig!("(Ljava/lang/String;[B)V"))?,
            null_pointer: Constructible::bind(env, jni_str!("java/lang/NullPointerException"), jni_sig!("(Ljava/lang/String;)V"))?,
            index_out_of_bounds: Constructible::bind(env, jni_str!("java/lang/IndexOutOfBoundsException"), jni_sig!("(Ljava/lang/String;)V"))?,
            execution_context: context,
            persist_snapshot,
            journal_slot: Constructible::bind(env, jni_str!("io/durablejournal/JournalSlot"), jni_sig!("([B[BI[B[B)V"))?,
            resuming_entry: Constructible::bind(env, jni_str!("io/durablejournal/store/internal/ResumingEntry"), jni_sig!("([BZI[B[I[I[[B[I[[B)V"))?,
            in_flight_entries: Constructible::bind(env, jni_str!("io/durablejournal/store/internal/InFlightEntries"), jni_sig!("([B[I[J[I)V"))?,
            byte_array: bootstrap_class(env, jni_str!("[B"))?,
            call_step: Constructible::bind(env, jni_str!("io/durablejournal/CallStep"), jni_sig!("(I[B[B[B)V"))?,
            store_stats: Constructible::bind(env, jni_str!("io/durablejournal/store/StoreStats"), jni_sig!("(JJJJJJJJJJ)V"))?,
            log_store_stats: Constructible::bind(env, jni_str!("io/durablejournal/store/LogStoreStats"), jni_sig!("(JJJJJJ)V"))?,
            business_key: BusinessKeyFields { kind, number, bytes, type_name },
            entry_key: EntryKeyFields { business, seq, action, event_kind, event },
            transport_submit,
            appending_await,
            transport_end_offsets,
            throwable_to_string,
            pending_call_function_id,
            pending_call_tree,
        })
    }
}

impl JvmClasses {
    /// Deletes every weak reference this binding made.
    ///
    /// # Safety
    /// `raw` is the current thread's JNIEnv, `jni` its function table, and
    /// nothing uses this binding's classes afterwards.
    unsafe fn delete_references(&self, raw: *mut jni::sys::JNIEnv, jni: &jni::sys::JNINativeInterface_) {
        let constructibles = [
            &self.journal_exception,
            &self.non_deterministic_replay,
            &self.call_interrupted,
            &self.null_pointer,
            &self.index_out_of_bounds,
            &self.execution_context,
            &self.journal_slot,
            &self.resuming_entry,
            &self.in_flight_entries,
            &self.call_step,
            &self.store_stats,
            &self.log_store_stats,
        ];
        let classes = constructibles.into_iter().map(|constructible| &constructible.class).chain([&self.byte_array]);
        for class in classes {
            // SAFETY: a weak global reference of this binding, deleted once.
            unsafe { (jni.v1_2.DeleteWeakGlobalRef)(raw, class.0) };
        }
    }
}

/// A JDK class (of the bootstrap loader), held like the library's own.
fn bootstrap_class(env: &mut Env<'_>, name: &JNIStr) -> jni::errors::Result<LoaderClass> {
    let local = env.find_class(name)?;
    let class = LoaderClass::new(env, &local);
    env.delete_local_ref(local);
    class
}

/// The ids of fields of one class, in the order asked.
fn field_ids<const N: usize>(env: &mut Env<'_>, class: &JNIStr, fields: [(&JNIStr, FieldSignature<'_>); N]) -> jni::errors::Result<[JFieldID; N]> {
    let local = env.find_class(class)?;
    let mut ids = Vec::with_capacity(N);
    for (name, signature) in fields {
        match env.get_field_id(&local, name, signature) {
            Ok(id) => ids.push(id),
            Err(e) => {
                env.delete_local_ref(local);
                return Err(e);
            }
        }
    }
    env.delete_local_ref(local);
    Ok(ids.try_into().unwrap_or_else(|_| unreachable!("one id per field")))
}

fn method_of(env: &mut Env<'_>, class: &JNIStr, name: &JNIStr, signature: MethodSignature<'_, '_>) -> jni::errors::Result<JMethodID> {
    let local = env.find_class(class)?;
    let id = env.get_method_id(&local, name, signature);
    env.delete_local_ref(local);
    id
}

// Field reads. A key crosses as one object read field by field on every
// keyed store call, so these go straight to the JNI function table: jni-rs
// wraps each JNI function in an ExceptionCheck before (and, for objects,
// after) the call, which for a key doubled the cost of reading it. No
// exception can be pending when they run (each is the first work of its
// export or follows another such read), and none of the functions they call
// raises one: Get<Type>Field never does (JNI specification), and
// GetByteArrayRegion only for a range outside the array, while here the range
// is the array's own length.

/// The raw `JNIEnv` and its function table.
fn raw(env: &Env<'_>) -> (*mut jni::sys::JNIEnv, &'static jni::sys::JNINativeInterface_) {
    let raw = env.get_raw();
    // SAFETY: `Env` holds a valid JNIEnv pointer for the current thread,
    // whose function table lives as long as the JVM.
    (raw, unsafe { &**raw })
}

/// An `int` field of a non-null object of the class `field` was bound on.
pub fn int_field(env: &Env<'_>, object: &JObject<'_>, field: JFieldID) -> jint {
    let (raw, jni) = raw(env);
    // SAFETY: callers pass a non-null object of the class the id was bound
    // on, and an int field's id.
    unsafe { (jni.v1_1.GetIntField)(raw, object.as_raw(), field.into_raw()) }
}

/// A `long` field, as [`int_field`].
pub fn long_field(env: &Env<'_>, object: &JObject<'_>, field: JFieldID) -> jlong {
    let (raw, jni) = raw(env);
    // SAFETY: as in `int_field`, for a long field's id.
    unsafe { (jni.v1_1.GetLongField)(raw, object.as_raw(), field.into_raw()) }
}

/// An object field, as [`int_field`]; a local reference the caller owns.
pub fn object_field<'l>(env: &Env<'l>, object: &JObject<'_>, field: JFieldID) -> JObject<'l> {
    let (raw, jni) = raw(env);
    // SAFETY: as in `int_field`, for an object field's id; the result is a
    // new local reference (or null) of this frame, owned by the wrapper.
    unsafe { JObject::from_raw(env, (jni.v1_1.GetObjectField)(raw, object.as_raw(), field.into_raw())) }
}

/// The bytes of a `byte[]` field (None for null), as [`int_field`]. The
/// field's local reference is left to the native method's return: a keyed
/// call reads one key (five references at most), far below the sixteen
/// every native method may hold, and a DeleteLocalRef per field is a
/// measurable share of reading a key.
pub fn byte_array_field(env: &Env<'_>, object: &JObject<'_>, field: JFieldID) -> Option<Vec<u8>> {
    let (raw, jni) = raw(env);
    // SAFETY: as in `int_field`, for the id of a field bound with the
    // signature `[B`: the value is a byte[] or null.
    let array = unsafe { (jni.v1_1.GetObjectField)(raw, object.as_raw(), field.into_raw()) };
    if array.is_null() {
        return None;
    }
    // SAFETY: `array` is a live local reference to a byte[], and the region
    // read is exactly its length.
    unsafe {
        let length = (jni.v1_1.GetArrayLength)(raw, array);
        let mut bytes = vec![0u8; length as usize];
        (jni.v1_1.GetByteArrayRegion)(raw, array, 0, length, bytes.as_mut_ptr().cast());
        Some(bytes)
    }
}
