package io.durablejournal.flinkagents;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.lang.reflect.Method;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Kryo's serializer for {@link Method}: a copy is the same method, and the serialized form names
 * it (declaring class, name, parameter types).
 *
 * <p>Flink Agents 0.3.1 caches an action's resolved {@code Method} in a transient field of its
 * {@code JavaFunction}, and keeps action tasks in keyed state with Kryo. The heap state backend
 * copies a state value that is written while a snapshot is in progress, and Kryo copies transient
 * fields field by field: the copy is a {@code Method} with no modifiers and no declaring class,
 * and invoking the action then throws {@code NullPointerException} (seen on a MiniCluster as
 * sporadic action failures, each a failover). {@link DurableAgents} registers this serializer as
 * the job's default for {@code Method}; a job that wires Flink Agents itself can call {@link
 * #register}.
 */
public final class MethodByReference extends Serializer<Method> {
    /** Makes this the default Kryo serializer for {@link Method} in {@code env}'s jobs. */
    public static void register(StreamExecutionEnvironment env) {
        SerializerConfig config = env.getConfig().getSerializerConfig();
        if (!(config instanceof SerializerConfigImpl)) {
            throw new IllegalStateException("cannot register a Kryo serializer for java.lang.reflect.Method with "
                    + config.getClass().getName());
        }
        ((SerializerConfigImpl) config).addDefaultKryoSerializer(Method.class, MethodByReference.class);
    }

    public MethodByReference() {
        setImmutable(true);
    }

    @Override
    public void write(Kryo kryo, Output output, Method method) {
        kryo.writeClass(output, method.getDeclaringClass());
        output.writeString(method.getName());
        Class<?>[] parameters = method.getParameterTypes();
        output.writeVarInt(parameters.length, true);
        for (Class<?> parameter : parameters) {
            kryo.writeClass(output, parameter);
        }
    }

    @Override
    public Method read(Kryo kryo, Input input, Class<? extends Method> type) {
        Class<?> declaring = kryo.readClass(input).getType();
        String name = input.readString();
        Class<?>[] parameters = new Class<?>[input.readVarInt(true)];
        for (int i = 0; i < parameters.length; i++) {
            parameters[i] = kryo.readClass(input).getType();
        }
        try {
            return declaring.getDeclaredMethod(name, parameters);
        } catch (NoSuchMethodException e) {
            throw new KryoException("method " + declaring.getName() + "." + name + " no longer exists", e);
        }
    }

    @Override
    public Method copy(Kryo kryo, Method original) {
        return original;
    }
}
