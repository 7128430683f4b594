import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

testDetectorFolder('C-20', detectors.filter((d) => d.genre === 'static'), import.meta.url, { skipServerFixtures: true });
