package bloomcodec.oracle;

import java.io.IOException;
import java.io.InputStream;

/**
 * Defines one class (and its nested classes) itself, with a chosen assertion status, and
 * delegates everything else to its parent. Two instances give two copies of the same bytecode
 * whose {@code assert} statements are on in one and off in the other.
 */
final class AssertionLoader extends ClassLoader {
  private final String className;

  AssertionLoader(ClassLoader parent, String className, boolean assertions) {
    super(parent);
    this.className = className;
    // Overrides -ea / -da of the command line for this class in this loader.
    setClassAssertionStatus(className, assertions);
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    if (!name.equals(className) && !name.startsWith(className + "$")) {
      return super.loadClass(name, resolve);
    }
    synchronized (getClassLoadingLock(name)) {
      Class<?> c = findLoadedClass(name);
      if (c == null) {
        String resource = name.replace('.', '/') + ".class";
        try (InputStream in = getParent().getResourceAsStream(resource)) {
          if (in == null) throw new ClassNotFoundException(name);
          byte[] code = in.readAllBytes();
          c = defineClass(name, code, 0, code.length);
        } catch (IOException e) {
          throw new ClassNotFoundException(name, e);
        }
      }
      if (resolve) resolveClass(c);
      return c;
    }
  }

  static SizingRules load(boolean assertions) throws ReflectiveOperationException {
    String name = Sizing.class.getName();
    ClassLoader loader = new AssertionLoader(Sizing.class.getClassLoader(), name, assertions);
    Class<?> c = Class.forName(name, true, loader);
    if (c.getClassLoader() != loader) throw new IllegalStateException("Sizing not redefined");
    SizingRules rules = (SizingRules) c.getDeclaredConstructor().newInstance();
    if (rules.assertionsEnabled() != assertions) {
      throw new IllegalStateException("could not set assertion status " + assertions);
    }
    return rules;
  }
}
