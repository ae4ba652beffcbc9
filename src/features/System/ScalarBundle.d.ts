// @effect/platform's inline Scalar bundle (its HttpApiScalar.layer serves it; the package exports no types for it).
declare module "*/internal/httpApiScalar.js" {
  export const javascript: string
}
