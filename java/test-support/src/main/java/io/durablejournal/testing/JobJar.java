package io.durablejournal.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashSet;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * A job jar as a user ships one: the library's jars (named by the system properties the Gradle
 * build sets) and the job's own classes, in one jar that a cluster loads in a user-code class
 * loader of the job's own. An entry already written (each jar has its manifest) is not written again.
 */
public final class JobJar {
    private final JarOutputStream out;
    private final Set<String> written = new HashSet<>();

    private JobJar(JarOutputStream out) {
        this.out = out;
    }

    /**
     * Writes {@code target}: every entry of the jars whose paths the system properties
     * {@code jarProperties} hold, then the class files of {@code shipped} (with their nested and
     * anonymous classes) from the directories they were compiled to.
     */
    public static Path build(Path target, String[] jarProperties, Class<?>... shipped) throws Exception {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(target))) {
            JobJar jar = new JobJar(out);
            for (String property : jarProperties) {
                jar.copyJar(System.getProperty(property));
            }
            for (Class<?> type : shipped) {
                jar.copyClassFiles(type);
            }
        }
        return target;
    }

    private void copyJar(String jar) throws IOException {
        assertTrue(jar != null && new File(jar).isFile(), "the build passes the jar: " + jar);
        try (JarFile source = new JarFile(jar)) {
            for (JarEntry entry : (Iterable<JarEntry>) source.stream()::iterator) {
                if (written.add(entry.getName())) {
                    out.putNextEntry(new JarEntry(entry.getName()));
                    try (InputStream in = source.getInputStream(entry)) {
                        in.transferTo(out);
                    }
                    out.closeEntry();
                }
            }
        }
    }

    private void copyClassFiles(Class<?> type) throws IOException, URISyntaxException {
        Path classes = Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        String packageDir = type.getPackage().getName().replace('.', '/');
        try (Stream<Path> files = Files.list(classes.resolve(packageDir))) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (name.startsWith(type.getSimpleName()) && name.endsWith(".class") && written.add(packageDir + "/" + name)) {
                    out.putNextEntry(new JarEntry(packageDir + "/" + name));
                    Files.copy(file, out);
                    out.closeEntry();
                }
            }
        }
    }
}
