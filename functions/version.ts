/** The service's version, in its own module so that an edge bundle can name it without app.ts's surfaces. */
export const VERSION = "0.1.0";
